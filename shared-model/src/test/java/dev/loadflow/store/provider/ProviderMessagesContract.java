package dev.loadflow.store.provider;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@link ProviderMessages} contract: one provider message is the receipt of at most one row. */
public abstract class ProviderMessagesContract {

    protected static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");
    private static final String ASK_1 = "481207/ask:eta_request:ping_0700/1/send_sms";
    private static final String ASK_2 = "481207/ask:eta_request:ping_0700/2/send_sms";

    private ProviderMessages messages;

    protected abstract ProviderMessages providerMessages();

    protected abstract void reset();

    @BeforeEach
    final void setUp() {
        reset();
        messages = providerMessages();
    }

    @Test
    final void aMessageRecordedForOneRowIsNeverAnotherRowsReceipt() {
        assertThat(messages.record("twilio", "SM1", ASK_1, null, T0)).isEqualTo(ProviderMessages.Recorded.NEW);
        assertThat(messages.record("twilio", "SM1", ASK_1, "delivered", T0.plusSeconds(5)))
                .isEqualTo(ProviderMessages.Recorded.ALREADY);
        assertThat(messages.record("twilio", "SM1", ASK_2, "sent", T0.plusSeconds(6)))
                .isEqualTo(ProviderMessages.Recorded.HELD_BY_ANOTHER);

        assertThat(messages.holders("twilio", List.of("SM1", "SM2"))).containsExactlyEntriesOf(java.util.Map.of("SM1", ASK_1));
        assertThat(messages.messagesOf("twilio", ASK_1)).containsExactly("SM1");
        assertThat(messages.messagesOf("twilio", ASK_2)).isEmpty();
        assertThat(messages.holders("slack", List.of("SM1"))).isEmpty();
    }

    @Test
    final void aRowsMessagesComeFirstRecordedFirst() {
        messages.record("twilio", "SM9", ASK_1, null, T0);
        messages.record("twilio", "SM3", ASK_1, null, T0.plusSeconds(1));

        assertThat(messages.messagesOf("twilio", ASK_1)).containsExactly("SM9", "SM3");
    }

    @Test
    final void twoRowsRecordingOneMessageAtOnceLeaveItWithOne() throws Exception {
        for (int round = 0; round < 20; round++) {
            String sid = "SM-race-" + round;
            CyclicBarrier start = new CyclicBarrier(2);
            List<Callable<ProviderMessages.Recorded>> recorders = new ArrayList<>();
            for (String row : List.of(ASK_1, ASK_2)) {
                recorders.add(() -> {
                    start.await();
                    return messages.record("twilio", sid, row, null, T0);
                });
            }
            ExecutorService pool = Executors.newFixedThreadPool(2);
            List<ProviderMessages.Recorded> results = new ArrayList<>();
            try {
                for (Future<ProviderMessages.Recorded> done : pool.invokeAll(recorders)) {
                    results.add(done.get());
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(results).as("round %d", round)
                    .containsExactlyInAnyOrder(ProviderMessages.Recorded.NEW, ProviderMessages.Recorded.HELD_BY_ANOTHER);
            String holder = messages.holders("twilio", List.of(sid)).get(sid);
            assertThat(messages.messagesOf("twilio", holder)).contains(sid);
        }
    }
}

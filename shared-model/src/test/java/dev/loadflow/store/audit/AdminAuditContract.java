package dev.loadflow.store.audit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@link AdminAudit} contract: rows come back newest first, filtered by time and principal, paged. */
public abstract class AdminAuditContract {

    protected static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");

    private AdminAudit audits;

    protected abstract AdminAudit adminAudit();

    protected abstract void reset();

    @BeforeEach
    final void setUp() {
        reset();
        audits = adminAudit();
    }

    private long change(String principal, String target, Instant at) {
        return audits.record(new AuditRecord(principal, "outbox-dispatcher", "outbox.replay", target,
                "{\"loadId\": \"481207\"}"), "{\"replayed\": 1}", at);
    }

    @Test
    final void aRecordedChangeReadsBackWithItsParametersAndResult() {
        long id = change("otto", "481207/ask:eta_request:ping_0700/1/send_sms", T0);

        assertThat(audits.list(new AuditQuery(null, null, 0, 10))).singleElement().satisfies(entry -> {
            assertThat(entry.id()).isEqualTo(id);
            assertThat(entry.at()).isEqualTo(T0);
            assertThat(entry.principal()).isEqualTo("otto");
            assertThat(entry.service()).isEqualTo("outbox-dispatcher");
            assertThat(entry.action()).isEqualTo("outbox.replay");
            assertThat(entry.target()).isEqualTo("481207/ask:eta_request:ping_0700/1/send_sms");
            assertThat(entry.params()).isEqualToIgnoringWhitespace("{\"loadId\": \"481207\"}");
            assertThat(entry.result()).isEqualToIgnoringWhitespace("{\"replayed\": 1}");
        });
    }

    @Test
    final void rowsComeNewestFirstFilteredByTimeAndPrincipalAndPaged() {
        change("otto", "a", T0);
        change("vera", "b", T0.plusSeconds(10));
        change("otto", "c", T0.plusSeconds(20));
        change("otto", "d", T0.plusSeconds(30));

        assertThat(audits.list(new AuditQuery(null, null, 0, 10))).extracting(AuditEntry::target)
                .containsExactly("d", "c", "b", "a");
        assertThat(audits.list(new AuditQuery(null, "otto", 0, 10))).extracting(AuditEntry::target)
                .containsExactly("d", "c", "a");
        assertThat(audits.list(new AuditQuery(T0.plusSeconds(10), null, 0, 10))).extracting(AuditEntry::target)
                .containsExactly("d", "c", "b");
        assertThat(audits.list(new AuditQuery(null, "otto", 1, 1))).extracting(AuditEntry::target).containsExactly("c");
    }
}

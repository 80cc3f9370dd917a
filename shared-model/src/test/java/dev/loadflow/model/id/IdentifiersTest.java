package dev.loadflow.model.id;

import dev.loadflow.model.action.ActionType;
import dev.loadflow.model.event.OutcomeStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every identifier of the identifiers table of docs/design.md, built and parsed back. */
class IdentifiersTest {

    private static final AskId ASK = AskId.of("eta_request", "ping_0700");

    @Test
    void askIdIsKindAndSourceEvent() {
        assertThat(ASK.toString()).isEqualTo("ask:eta_request:ping_0700");
        assertThat(AskId.parse("ask:eta_request:ping_0700")).isEqualTo(ASK);
        assertThat(AskId.parse("ask:eta_request:evt:tmr:481207:ask:x:1").sourceEventId()).isEqualTo("evt:tmr:481207:ask:x:1");
    }

    @Test
    void actionKeyIsTheOutboxIdOfTheDesignTable() {
        ActionKey key = ActionKey.of("481207", ASK, 1, ActionType.SEND_SMS);

        assertThat(key.toString()).isEqualTo("481207/ask:eta_request:ping_0700/1/send_sms");
        assertThat(ActionKey.parse(key.toString())).isEqualTo(key);
    }

    @Test
    void timerIdNamesLoadAskAndAttempt() {
        TimerId id = TimerId.of("481207", ASK, 1);

        assertThat(id.toString()).isEqualTo("tmr:481207:ask:eta_request:ping_0700:1");
        assertThat(TimerId.parse(id.toString())).isEqualTo(id);
    }

    @Test
    void timerFiredEventIdIsDerivedFromTheTimer() {
        assertThat(EventIds.timerFired(TimerId.of("481207", ASK, 2)))
                .isEqualTo("evt:tmr:481207:ask:eta_request:ping_0700:2");
    }

    @Test
    void actionOutcomeEventIdDiffersByStatus() {
        String outboxId = "481207/ask:eta_request:ping_0700/1/send_sms";

        assertThat(EventIds.actionOutcome(outboxId, OutcomeStatus.DELIVERED))
                .isEqualTo("out:481207/ask:eta_request:ping_0700/1/send_sms:delivered");
        assertThat(EventIds.actionOutcome(outboxId, OutcomeStatus.FAILED))
                .isEqualTo("out:481207/ask:eta_request:ping_0700/1/send_sms:failed");
    }

    @Test
    void theHeroTaskAfterADuplicateActionKeyIsKeyedByTheEvent() {
        assertThat(ActionKey.heroTaskAfterDuplicate("481207", "ping_0700").toString())
                .isEqualTo("481207/evt:ping_0700/1/create_hero_task");
    }

    @ParameterizedTest
    @ValueSource(strings = {"481207", "load_A-7", "a"})
    void loadIdsOfTheAlphabetAreAccepted(String loadId) {
        assertThat(InboundIds.requireLoadId(loadId)).isEqualTo(loadId);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "48/1207", "48:1207", "load 1", "load.1",
            "0123456789012345678901234567890123456789012345678901234567890123456789"})
    void loadIdsOutsideTheAlphabetAreRefused(String loadId) {
        assertThatThrownBy(() -> InboundIds.requireLoadId(loadId))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("loadId");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "ping/0700", "ping:0700", "ping 0700"})
    void eventIdsWithDelimitersAreRefused(String eventId) {
        assertThat(InboundIds.isValidEventId(eventId)).isFalse();
        assertThat(InboundIds.isValidEventId("ping_0700.v2-b")).isTrue();
    }

    @Test
    void malformedIdsDoNotParse() {
        assertThatThrownBy(() -> TimerId.parse("tmr:481207")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ActionKey.parse("481207/ask:x:y/one/send_sms")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ActionKey.parse("481207/ask:x:y/1/send_fax")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AskId.parse("eta_request:ping_0700")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ActionKey.of("481207", ASK, 0, ActionType.SEND_SMS)).isInstanceOf(IllegalArgumentException.class);
    }
}

package dev.loadflow.dispatcher;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Urgency;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxMessage;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.OutboxStatus;
import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static dev.loadflow.testing.Waits.await;

/** Outbox rows as the load worker commits them, and what tests wait for and look at. */
final class Staging {

    static final AskId ASK = AskId.of("eta_request", "ping_0700");

    private Staging() {
    }

    static String smsId(String load) {
        return load + "/" + ASK + "/1/send_sms";
    }

    /** A decision with {@code actions} on a ping of {@code load}, committed with its outbox rows. */
    static void decide(EventStore events, String load, List<Action> actions, Instant now) {
        InboundEvent ping = new InboundEvent("ping_0700", load, now, now, "c-" + load, null,
                new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6));
        events.append(load, List.of(ping, DecisionRecorded.decided(ping, now, actions, false, "test", List.of())), 0,
                actions.stream().map(a -> OutboxMessage.of(load, a, now, ping.correlationId(), ping.eventId())).toList());
    }

    /** The ETA ask of the SOP: send_sms and set_timer. */
    static void etaAsk(EventStore events, String load, Instant now) {
        decide(events, load, List.of(new Action.SendSms(ASK, 1, "+15550100", "ETA?"),
                new Action.SetTimer(TimerId.of(load, ASK, 1), now.plus(Duration.ofMinutes(30)))), now);
    }

    static void heroTask(EventStore events, String load, Instant now) {
        decide(events, load, List.of(new Action.CreateHeroTask(ASK.toString(), 3, "Driver not answering",
                Urgency.URGENT, "call them")), now);
    }

    static OutboxRow awaitStatus(Outbox outbox, String outboxId, OutboxStatus status) {
        await().atMost(Duration.ofSeconds(30)).until(() -> outbox.find(outboxId).map(r -> r.status() == status).orElse(false));
        return outbox.find(outboxId).orElseThrow();
    }

    /** The body of the queued message with {@code messageId}, or null. */
    static String queued(Pool pool, String load, String messageId) {
        var rows = Pg.await(pool.preparedQuery("SELECT body::text AS body FROM load_queue WHERE load_id = $1 AND message_id = $2")
                .execute(Tuple.of(load, messageId)));
        return rows.size() == 0 ? null : rows.iterator().next().getString("body");
    }

    static long count(Pool pool, String sql, String... args) {
        return Pg.await(pool.preparedQuery(sql).execute(Tuple.from(args))).iterator().next().getLong(0);
    }
}

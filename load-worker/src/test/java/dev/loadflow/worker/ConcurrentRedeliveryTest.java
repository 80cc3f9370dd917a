package dev.loadflow.worker;

import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.policy.DecisionPolicy;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.worker.run.LoadRun;
import dev.loadflow.worker.run.RunOutcome;
import dev.loadflow.worker.run.WorkerMetrics;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;

import static dev.loadflow.service.testing.Management.management;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.worker.LoadApi.count;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redelivery at its worst: 50 events of one load, each delivered twice, shuffled, to 4
 * concurrent runs on two worker instances (the service's own and a second one on the same
 * database), with no queue to serialise them. The version check alone keeps the log right.
 */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
class ConcurrentRedeliveryTest {

    @Inject
    LoadRun serviceRun;

    @Inject
    EventStore events;

    @Inject
    DecisionPolicy policy;

    @Inject
    Clock clock;

    @Inject
    WorkerMetrics metrics;

    @Inject
    Pool pool;

    private static double conflictsMetric() {
        String line = management().get("/q/metrics").then().statusCode(200).extract().asString().lines()
                .filter(l -> l.startsWith("loadflow_worker_conflicts_total")).findFirst().orElseThrow();
        // "name value", then, with a trace current, " # {exemplar} value time"
        return Double.parseDouble(line.split(" ")[1]);
    }

    private static List<InboundEvent> fiftyEvents(String load) {
        Instant t = Instant.parse("2026-11-30T07:00:00Z");
        List<InboundEvent> events = new ArrayList<>();
        events.add(new InboundEvent("assign_1", load, t, t, "c-1", null,
                new EventPayload.LoadAssigned("client-a", "+15550100", "dispatched")));
        for (int i = 1; i < 50; i++) {
            EventPayload payload = i % 3 == 0
                    ? new EventPayload.InboundSms("+15550100", "reply " + i)
                    : new EventPayload.LocationPing(i % 2 == 0 ? Risk.HIGH : Risk.LOW, 41.9, -87.6);
            events.add(new InboundEvent("evt_" + i, load, t.plusSeconds(i), t.plusSeconds(i), "c-1", null, payload));
        }
        return events;
    }

    @Test
    void fiftyEventsDeliveredTwiceInShuffledOrderToFourRunsLeaveOneDecisionEachAndNoGap() throws Exception {
        String load = newLoadId();
        LoadRun secondInstance = LoadRun.builder(events, policy, clock).metrics(metrics).build();
        List<InboundEvent> deliveries = new ArrayList<>(fiftyEvents(load));
        deliveries.addAll(fiftyEvents(load));
        Collections.shuffle(deliveries, new Random(7));
        ConcurrentLinkedQueue<InboundEvent> inbox = new ConcurrentLinkedQueue<>(deliveries);
        ConcurrentLinkedQueue<RunOutcome> outcomes = new ConcurrentLinkedQueue<>();
        double conflictsBefore = conflictsMetric();

        List<Callable<Void>> workers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            LoadRun run = w % 2 == 0 ? serviceRun : secondInstance;
            workers.add(() -> {
                InboundEvent event;
                while ((event = inbox.poll()) != null) {
                    RunOutcome outcome;
                    do { // a run that gives up after its conflict retries is delivered again, as the queue would
                        outcome = run.process(event);
                        outcomes.add(outcome);
                    } while (!outcome.result().ack());
                }
                return null;
            });
        }
        ExecutorService pool4 = Executors.newFixedThreadPool(4);
        try {
            for (Future<Void> done : pool4.invokeAll(workers)) {
                done.get();
            }
        } finally {
            pool4.shutdownNow();
        }

        LoadLog log = events.read(load);
        assertThat(log.version()).isEqualTo(100);
        assertThat(log.entries()).extracting(RecordedEntry::seq)
                .containsExactlyElementsOf(LongStream.rangeClosed(1, 100).boxed().toList());
        List<String> decidedOn = log.entries().stream().map(RecordedEntry::entry)
                .filter(e -> e instanceof DecisionRecorded).map(e -> ((DecisionRecorded) e).eventId()).toList();
        assertThat(decidedOn).hasSize(50).doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(fiftyEvents(load).stream().map(InboundEvent::eventId).toList());
        for (int i = 0; i < 100; i += 2) {
            assertThat(log.entries().get(i + 1).entry().causationId()).isEqualTo(log.entries().get(i).entry().entryId());
        }
        long actions = log.entries().stream().map(RecordedEntry::entry).filter(e -> e instanceof DecisionRecorded)
                .mapToLong(e -> ((DecisionRecorded) e).actions().size()).sum();
        assertThat(count(pool, "SELECT count(*) FROM outbox WHERE load_id = $1", load)).isEqualTo(actions).isPositive();

        int conflicts = outcomes.stream().mapToInt(RunOutcome::conflicts).sum();
        assertThat(conflicts).as("conflicts the race produced").isPositive();
        assertThat(conflictsMetric() - conflictsBefore).isEqualTo(conflicts);
        assertThat(outcomes.stream().filter(o -> o.result().ack()).count()).isEqualTo(100);
    }
}

package dev.loadflow.store.outbox;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.audit.AdminAudit;
import dev.loadflow.store.audit.AuditEntry;
import dev.loadflow.store.audit.AuditQuery;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.eventlog.EventStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.loadflow.testing.Fixtures.decision;
import static dev.loadflow.testing.Fixtures.etaAsk;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.testing.Fixtures.outboxRows;
import static dev.loadflow.testing.Fixtures.ping;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@link Outbox} contract (ADR 0003 "Transactional outbox" and "Claims, leases and the
 * retry budget"). Rows are staged the way production stages them: by an event store append.
 */
public abstract class OutboxContract {

    protected static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");
    protected static final Duration LEASE = Duration.ofSeconds(90);

    protected final FakeClock clock = FakeClock.at(T0);
    private Outbox outbox;
    private EventStore events;

    /** The outbox under test, with claims of {@code lease}. */
    protected abstract Outbox outbox(Clock clock, Duration lease);

    /** The event store of the same backend, which stages outbox rows. */
    protected abstract EventStore eventStore(Clock clock);

    protected abstract void reset();

    /** The audit trail the replays write to. */
    protected abstract AdminAudit audits();

    private static final AuditRecord REPLAY = new AuditRecord("otto", "outbox-dispatcher", "outbox.replay", "test", "{}");

    @BeforeEach
    final void setUp() {
        reset();
        outbox = outbox(clock, LEASE);
        events = eventStore(clock);
    }

    /** Stages one ETA ask (send_sms + set_timer) for a new load; returns the send_sms id. */
    /**
     * Whether a claim takes the oldest due rows of all loads first. A store that claims a node at
     * a time (PostgreSQL distributed by Citus) takes each node's oldest first, the nodes in turn.
     */
    protected boolean oldestFirstAcrossLoads() {
        return true;
    }

    private String stageAsk(Instant availableAt) {
        String load = newLoadId();
        InboundEvent ping = ping(load, "ping_0700", availableAt);
        List<Action> actions = etaAsk(ping, availableAt);
        events.append(load, List.of(ping, decision(ping, availableAt, actions)), 0,
                outboxRows(load, actions, availableAt, ping.eventId()));
        return load + "/ask:eta_request:ping_0700/1/send_sms";
    }

    private OutboxRow claimOnly(String outboxId) {
        List<OutboxRow> claimed = outbox.pending(100, clock.instant());
        assertThat(claimed).extracting(OutboxRow::outboxId).contains(outboxId);
        return claimed.stream().filter(r -> r.outboxId().equals(outboxId)).findFirst().orElseThrow();
    }

    @Test
    final void pendingClaimsDueRowsWithFreshTokensAndALease() {
        String sms = stageAsk(T0);

        List<OutboxRow> claimed = outbox.pending(10, T0);

        assertThat(claimed).hasSize(2);
        assertThat(claimed).extracting(OutboxRow::claimToken).doesNotContainNull().doesNotHaveDuplicates();
        OutboxRow row = claimed.stream().filter(r -> r.outboxId().equals(sms)).findFirst().orElseThrow();
        assertThat(row.claimedUntil()).isEqualTo(T0.plus(LEASE));
        assertThat(row.attempts()).isEqualTo(1);
        assertThat(row.firstAttemptAt()).isEqualTo(T0);
        assertThat(row.actionType()).isEqualTo("send_sms");
        assertThat(row.channel()).isEqualTo(Channel.SMS);
        assertThat(row.payload()).contains("\"to\"").contains("+15550100");
    }

    @Test
    final void forLoadListsEveryRowOfTheLoadWhateverItsStatusAndNoOtherLoadsRows() {
        String sms = stageAsk(T0);
        String load = sms.substring(0, sms.indexOf('/'));
        stageAsk(T0);
        OutboxRow claimed = claimOnly(sms);
        outbox.markDispatched(sms, claimed.claimToken(), "msg-1");

        List<OutboxRow> rows = outbox.forLoad(load);

        assertThat(rows).extracting(OutboxRow::loadId).containsOnly(load);
        assertThat(rows).extracting(OutboxRow::actionType).containsExactlyInAnyOrder("send_sms", "set_timer");
        assertThat(rows).filteredOn(r -> r.outboxId().equals(sms)).singleElement()
                .satisfies(r -> assertThat(r.receipt()).isEqualTo("msg-1"));
        assertThat(outbox.forLoad("no-such-load")).isEmpty();
    }

    /** A send the provider accepted whose finish failed keeps its receipt: the next claim finds it, still pending. */
    @Test
    final void anAcceptedSendWhoseFinishFailedKeepsItsReceiptForTheNextClaim() {
        String sms = stageAsk(T0);
        OutboxRow first = claimOnly(sms);

        outbox.markAccepted(sms, first.claimToken(), "SMaaa", "accepted, but its outcome could not be published",
                T0.plusSeconds(2));
        clock.advance(Duration.ofSeconds(2));
        OutboxRow second = claimOnly(sms);

        assertThat(second.status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(second.receipt()).isEqualTo("SMaaa");
        assertThat(second.attempts()).isEqualTo(2);
        assertThat(outbox.failures(sms)).extracting(OutboxFailure::failure)
                .containsExactly("accepted, but its outcome could not be published");
        assertThatThrownBy(() -> outbox.markAccepted(sms, first.claimToken(), "SMbbb", "late", T0))
                .isInstanceOf(StaleClaimException.class);
        outbox.markDispatched(sms, second.claimToken(), second.receipt());
        assertThat(outbox.find(sms).orElseThrow().receipt()).isEqualTo("SMaaa");
    }

    /** The SMS rows to one number, whatever their status, and only those since the time asked. */
    @Test
    final void smsToListsTheSmsRowsToANumberSinceATime() {
        String early = stageAsk(T0);
        clock.advance(Duration.ofMinutes(10));
        String late = stageAsk(clock.instant());
        OutboxRow claimed = claimOnly(late);
        outbox.markDispatched(late, claimed.claimToken(), "SMccc");

        assertThat(outbox.smsTo("+15550100", T0)).extracting(OutboxRow::outboxId).containsExactly(early, late);
        assertThat(outbox.smsTo("+15550100", T0.plusSeconds(60))).extracting(OutboxRow::outboxId).containsExactly(late);
        assertThat(outbox.smsTo("+15550199", T0)).isEmpty();
    }

    /** A lost answer on a channel without idempotency: the row comes back knowing since when it is unsure. */
    @Test
    final void anUnsureAttemptIsRetriedAndTheRowRemembersSinceWhen() {
        String sms = stageAsk(T0);
        OutboxRow first = claimOnly(sms);
        assertThat(first.unsureSince()).isNull();

        clock.advance(Duration.ofSeconds(5));
        outbox.markUnsure(sms, first.claimToken(), "no answer within PT10S", T0.plusSeconds(30));
        clock.advance(Duration.ofSeconds(25));
        OutboxRow second = claimOnly(sms);
        outbox.markUnsure(sms, second.claimToken(), "no answer again", T0.plusSeconds(60));
        clock.advance(Duration.ofSeconds(30));
        OutboxRow third = claimOnly(sms);

        assertThat(second.unsureSince()).isEqualTo(T0.plusSeconds(5));
        assertThat(third.unsureSince()).as("since the first unsure attempt").isEqualTo(T0.plusSeconds(5));
        assertThat(third.attempts()).isEqualTo(3);
        assertThat(outbox.failures(sms)).extracting(OutboxFailure::failure)
                .containsExactly("no answer within PT10S", "no answer again");
        assertThatThrownBy(() -> outbox.markUnsure(sms, first.claimToken(), "late", T0)).isInstanceOf(StaleClaimException.class);
    }

    /**
     * An ambiguous row waits for an operator: never claimed, listed, and resolved once, audited:
     * marked delivered (dispatched with the operator's receipt) or sent again (pending, a fresh budget).
     */
    @Test
    final void anAmbiguousRowWaitsUntilAnOperatorResolvesIt() {
        String delivered = stageAsk(T0);
        String resend = stageAsk(T0);
        List<OutboxRow> claimed = outbox.pending(100, clock.instant());
        OutboxRow a = claimed.stream().filter(r -> r.outboxId().equals(delivered)).findFirst().orElseThrow();
        OutboxRow b = claimed.stream().filter(r -> r.outboxId().equals(resend)).findFirst().orElseThrow();
        outbox.markAmbiguous(delivered, a.claimToken(), "connection reset after the request was written");
        outbox.markAmbiguous(resend, b.claimToken(), "no answer within PT10S");

        clock.advance(LEASE.multipliedBy(2));
        assertThat(outbox.pending(100, clock.instant())).extracting(OutboxRow::outboxId).doesNotContain(delivered, resend);
        assertThat(outbox.ambiguous(10)).extracting(OutboxRow::outboxId).containsExactlyInAnyOrder(delivered, resend);
        assertThat(outbox.find(delivered).orElseThrow().status()).isEqualTo(OutboxStatus.AMBIGUOUS);

        AuditRecord marked = new AuditRecord("otto", "outbox-dispatcher", "outbox.resolve", delivered, "{\"as\":\"delivered\"}");
        Optional<Long> audited = outbox.resolve(delivered, Outbox.Resolution.DELIVERED, "marked delivered by otto", clock.instant(),
                marked);
        assertThat(audited).isPresent();
        assertThat(outbox.resolve(delivered, Outbox.Resolution.DELIVERED, "again", clock.instant(), marked))
                .as("no longer ambiguous: nothing changed, nothing audited").isEmpty();
        OutboxRow done = outbox.find(delivered).orElseThrow();
        assertThat(done.status()).isEqualTo(OutboxStatus.DISPATCHED);
        assertThat(done.receipt()).isEqualTo("marked delivered by otto");

        Instant now = clock.instant();
        assertThat(outbox.resolve(resend, Outbox.Resolution.RESEND, null, now,
                new AuditRecord("otto", "outbox-dispatcher", "outbox.resolve", resend, "{\"as\":\"resend\"}"))).isPresent();
        OutboxRow again = claimOnly(resend);
        assertThat(again.attempts()).as("a fresh budget").isEqualTo(1);
        assertThat(again.firstAttemptAt()).isEqualTo(now);
        assertThat(again.unsureSince()).isNull();
        assertThat(outbox.ambiguous(10)).isEmpty();
        assertThat(audits().list(new AuditQuery(null, "otto", 0, 10))).extracting(AuditEntry::target)
                .containsExactlyInAnyOrder(delivered, resend);
    }

    @Test
    final void rowsNotYetAvailableAreNotClaimed() {
        stageAsk(T0.plusSeconds(10));

        assertThat(outbox.pending(10, T0)).isEmpty();
        assertThat(outbox.pending(10, T0.plusSeconds(10))).hasSize(2);
    }

    @Test
    final void aClaimedRowIsNotHandedOutAgainWhileItsLeaseHolds() {
        stageAsk(T0);
        assertThat(outbox.pending(10, T0)).hasSize(2);

        assertThat(outbox.pending(10, T0.plus(LEASE).minusMillis(1))).isEmpty();
    }

    @Test
    final void aClaimAfterTheLeaseTakesTheRowOverAndTheOldTokenIsStale() {
        String sms = stageAsk(T0);
        OutboxRow first = claimOnly(sms);
        clock.advance(LEASE);

        OutboxRow second = claimOnly(sms);

        assertThat(second.claimToken()).isNotEqualTo(first.claimToken());
        assertThat(second.attempts()).isEqualTo(2);
        assertThat(outbox.isClaimHeld(sms, first.claimToken(), clock.instant())).isFalse();
        assertThatThrownBy(() -> outbox.markDispatched(sms, first.claimToken(), "late receipt"))
                .isInstanceOf(StaleClaimException.class);
        assertThatThrownBy(() -> outbox.markFailed(sms, first.claimToken(), "late failure", null))
                .isInstanceOf(StaleClaimException.class);
        OutboxRow unchanged = outbox.find(sms).orElseThrow();
        assertThat(unchanged.status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(unchanged.claimToken()).isEqualTo(second.claimToken());
        assertThat(unchanged.receipt()).isNull();
        assertThat(outbox.failures(sms)).isEmpty();

        outbox.markDispatched(sms, second.claimToken(), "msg-1");
        assertThat(outbox.find(sms).orElseThrow().receipt()).isEqualTo("msg-1");
    }

    @Test
    final void theClaimIsHeldUntilTheLeaseEndsOrTheRowIsMarked() {
        String sms = stageAsk(T0);
        OutboxRow row = claimOnly(sms);

        assertThat(outbox.isClaimHeld(sms, row.claimToken(), T0.plusSeconds(89))).isTrue();
        assertThat(outbox.isClaimHeld(sms, row.claimToken(), T0.plus(LEASE))).isFalse();
        assertThat(outbox.isClaimHeld(sms, UUID.randomUUID(), T0)).isFalse();
        outbox.markDispatched(sms, row.claimToken(), "msg-1");
        assertThat(outbox.isClaimHeld(sms, row.claimToken(), T0)).isFalse();
    }

    @Test
    final void markDispatchedKeepsTheReceiptAndTheRowIsNeverClaimedAgain() {
        String sms = stageAsk(T0);
        OutboxRow row = claimOnly(sms);
        clock.advance(Duration.ofSeconds(2));

        outbox.markDispatched(sms, row.claimToken(), "{\"messageId\":\"m-1\"}");

        OutboxRow done = outbox.find(sms).orElseThrow();
        assertThat(done.status()).isEqualTo(OutboxStatus.DISPATCHED);
        assertThat(done.receipt()).isEqualTo("{\"messageId\":\"m-1\"}");
        assertThat(done.dispatchedAt()).isEqualTo(T0.plusSeconds(2));
        assertThat(done.claimToken()).isNull();
        assertThat(outbox.pending(10, T0.plus(Duration.ofDays(1)))).extracting(OutboxRow::outboxId).doesNotContain(sms);
        assertThatThrownBy(() -> outbox.markDispatched(sms, row.claimToken(), "again"))
                .isInstanceOf(StaleClaimException.class);
    }

    @Test
    final void markDispatchedAllMarksEveryHeldRowAndReportsTheStaleOnes() {
        String second = stageAsk(T0);
        OutboxRow b = claimOnly(second);
        clock.advance(LEASE);
        String first = stageAsk(clock.instant());
        List<OutboxRow> claimed = outbox.pending(100, clock.instant());
        OutboxRow a = claimed.stream().filter(r -> r.outboxId().equals(first)).findFirst().orElseThrow();
        OutboxRow bAgain = claimed.stream().filter(r -> r.outboxId().equals(second)).findFirst().orElseThrow();

        var stale = outbox.markDispatchedAll(List.of(new Outbox.Dispatched(first, a.claimToken(), "msg-a"),
                new Outbox.Dispatched(second, b.claimToken(), "late")));

        assertThat(stale).containsExactly(second);
        assertThat(outbox.find(first).orElseThrow().status()).isEqualTo(OutboxStatus.DISPATCHED);
        assertThat(outbox.find(first).orElseThrow().receipt()).isEqualTo("msg-a");
        OutboxRow untouched = outbox.find(second).orElseThrow();
        assertThat(untouched.status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(untouched.claimToken()).isEqualTo(bAgain.claimToken());
        assertThat(untouched.receipt()).isNull();
    }

    @Test
    final void aFailureWithRetryAtBacksOffAndFirstAttemptAtStaysAtTheFirstClaim() {
        String sms = stageAsk(T0);
        OutboxRow first = claimOnly(sms);
        clock.advance(Duration.ofSeconds(1));

        outbox.markFailed(sms, first.claimToken(), "503 Service Unavailable", T0.plusSeconds(5));

        OutboxRow backedOff = outbox.find(sms).orElseThrow();
        assertThat(backedOff.status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(backedOff.availableAt()).isEqualTo(T0.plusSeconds(5));
        assertThat(backedOff.lastFailure()).isEqualTo("503 Service Unavailable");
        assertThat(backedOff.claimToken()).isNull();
        assertThat(outbox.pending(10, T0.plusSeconds(4))).extracting(OutboxRow::outboxId).doesNotContain(sms);

        clock.set(T0.plusSeconds(5));
        OutboxRow retry = claimOnly(sms);
        assertThat(retry.attempts()).isEqualTo(2);
        assertThat(retry.firstAttemptAt()).isEqualTo(T0);
        assertThat(outbox.failures(sms)).singleElement().satisfies(f -> {
            assertThat(f.attempt()).isEqualTo(1);
            assertThat(f.failedAt()).isEqualTo(T0.plusSeconds(1));
            assertThat(f.parked()).isFalse();
        });
    }

    @Test
    final void aParkedRowIsNeverClaimedUntilReplayedWithAFreshBudgetAndTheSameKey() {
        String sms = stageAsk(T0);
        OutboxRow row = claimOnly(sms);
        clock.advance(Duration.ofSeconds(1));
        outbox.markFailed(sms, row.claimToken(), "400 Bad Request: invalid number", null);

        OutboxRow dead = outbox.find(sms).orElseThrow();
        assertThat(dead.status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(dead.deadAt()).isEqualTo(T0.plusSeconds(1));
        assertThat(outbox.pending(100, T0.plus(Duration.ofDays(30)))).extracting(OutboxRow::outboxId).doesNotContain(sms);
        assertThat(outbox.failures(sms)).singleElement().extracting(OutboxFailure::parked).isEqualTo(true);

        clock.advance(Duration.ofMinutes(10));
        Optional<Long> audited = outbox.replay(sms, clock.instant(), REPLAY);
        assertThat(audited).isPresent();
        assertThat(outbox.replay(sms, clock.instant(), REPLAY)).as("a pending row is not replayed twice").isEmpty();
        assertThat(audits().list(new AuditQuery(null, "otto", 0, 10))).as("one row, for the replay that changed something")
                .singleElement().satisfies(entry -> {
                    assertThat(entry.id()).isEqualTo(audited.get());
                    assertThat(entry.at()).isEqualTo(clock.instant());
                    assertThat(entry.result()).isEqualToIgnoringWhitespace("{\"replayed\": 1}");
                });

        OutboxRow replayed = claimOnly(sms);
        assertThat(replayed.outboxId()).isEqualTo(sms);
        assertThat(replayed.attempts()).isEqualTo(1);
        assertThat(replayed.firstAttemptAt()).isEqualTo(clock.instant());
        assertThat(outbox.failures(sms)).as("history survives the replay").hasSize(1);
    }

    @Test
    final void anAcknowledgedDeadRowStaysDeadUntilAReplayWhichForgetsTheAcknowledgement() {
        String sms = stageAsk(T0);
        outbox.markFailed(sms, claimOnly(sms).claimToken(), "400 Bad Request: invalid number", null);
        assertThat(outbox.find(sms).orElseThrow().acknowledgedAt()).isNull();

        clock.advance(Duration.ofMinutes(5));
        assertThat(outbox.acknowledge(sms, clock.instant(), REPLAY)).isPresent();
        assertThat(outbox.acknowledge(sms, clock.instant(), REPLAY)).as("once").isEmpty();
        OutboxRow acknowledged = outbox.find(sms).orElseThrow();
        assertThat(acknowledged.status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(acknowledged.acknowledgedAt()).isEqualTo(clock.instant());
        assertThat(outbox.pending(100, T0.plus(Duration.ofDays(30)))).extracting(OutboxRow::outboxId).doesNotContain(sms);

        assertThat(outbox.replay(sms, clock.instant(), REPLAY)).isPresent();
        assertThat(outbox.find(sms).orElseThrow().acknowledgedAt()).as("a row that dies again waits for an operator again")
                .isNull();
        assertThat(outbox.acknowledge(sms, clock.instant(), REPLAY)).as("a pending row is not acknowledged").isEmpty();
    }

    /**
     * A row given back untried (its channel unavailable) keeps its attempts, and its budget runs from
     * its first claim: a channel that stays down, or whose trial calls fail, never restarts it.
     */
    @Test
    final void aDeferredRowIsDueAgainLaterWithItsAttemptsUntouchedAndItsBudgetRunning() {
        String sms = stageAsk(T0);
        OutboxRow first = claimOnly(sms);

        outbox.defer(sms, first.claimToken(), T0.plusSeconds(30));

        OutboxRow deferred = outbox.find(sms).orElseThrow();
        assertThat(deferred.attempts()).isZero();
        assertThat(deferred.firstAttemptAt()).as("the budget runs from the first claim").isEqualTo(T0);
        assertThat(deferred.claimToken()).isNull();
        assertThat(outbox.pending(10, T0.plusSeconds(29))).extracting(OutboxRow::outboxId).doesNotContain(sms);
        clock.set(T0.plusSeconds(30));
        OutboxRow again = claimOnly(sms);
        assertThat(again.attempts()).isEqualTo(1);
        assertThat(again.firstAttemptAt()).isEqualTo(T0);
        assertThatThrownBy(() -> outbox.defer(sms, first.claimToken(), T0)).isInstanceOf(StaleClaimException.class);

        // a row already tried keeps its budget's start when deferred
        outbox.markFailed(sms, again.claimToken(), "503", T0.plusSeconds(31));
        clock.set(T0.plusSeconds(31));
        OutboxRow retry = claimOnly(sms);
        outbox.defer(sms, retry.claimToken(), T0.plusSeconds(60));
        assertThat(outbox.find(sms).orElseThrow().attempts()).isEqualTo(1);
        assertThat(outbox.find(sms).orElseThrow().firstAttemptAt()).isEqualTo(T0);
    }

    @Test
    final void theOldestPendingRowIsReportedPerChannel() {
        stageAsk(T0);
        clock.advance(Duration.ofSeconds(40));
        String later = stageAsk(clock.instant());
        for (OutboxRow row : outbox.pending(100, clock.instant())) {
            if (!row.outboxId().equals(later)) {
                outbox.markDispatched(row.outboxId(), row.claimToken(), "ok");
            }
        }

        assertThat(outbox.oldestPendingByChannel()).containsOnly(java.util.Map.entry(Channel.SMS, T0.plusSeconds(40)));
    }

    @Test
    final void deadRowsAreListedByFilterAndPagedAndReplayedInBulk() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(stageAsk(T0));
        }
        for (OutboxRow row : outbox.pending(100, T0)) {
            clock.advance(Duration.ofSeconds(1));
            outbox.markFailed(row.outboxId(), row.claimToken(), "permanent", null);
        }
        String firstLoad = ids.get(0).substring(0, ids.get(0).indexOf('/'));

        assertThat(outbox.dead(DeadRowQuery.all(100))).hasSize(10);
        assertThat(outbox.dead(new DeadRowQuery(firstLoad, null, null, 0, 100))).hasSize(2);
        assertThat(outbox.dead(new DeadRowQuery(null, "send_sms", null, 0, 100)))
                .extracting(OutboxRow::outboxId).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(outbox.dead(new DeadRowQuery(null, null, T0.plusSeconds(9), 0, 100))).hasSize(2);
        List<OutboxRow> page1 = outbox.dead(new DeadRowQuery(null, null, null, 0, 4));
        List<OutboxRow> page3 = outbox.dead(new DeadRowQuery(null, null, null, 8, 4));
        assertThat(page1).hasSize(4);
        assertThat(page3).hasSize(2);
        assertThat(page1.get(0).deadAt()).isAfterOrEqualTo(page1.get(3).deadAt());

        DeadRowQuery sms = new DeadRowQuery(null, "send_sms", null, 0, 100);
        assertThat(outbox.countDead(sms)).isEqualTo(5);
        assertThat(outbox.countDead(new DeadRowQuery(null, null, T0.plusSeconds(9), T0.plusSeconds(10), 0, 1))).isEqualTo(1);
        List<String> smsIds = outbox.dead(sms).stream().map(OutboxRow::outboxId).toList();
        Outbox.Replayed replayed = outbox.replay(smsIds, 0, clock.instant(), REPLAY);
        assertThat(replayed.replayed()).isEqualTo(5);
        assertThat(outbox.replay(smsIds, 0, clock.instant(), REPLAY).replayed()).as("no longer dead").isZero();
        assertThat(audits().list(new AuditQuery(null, null, 0, 10))).extracting(AuditEntry::id).contains(replayed.auditId());
        assertThat(outbox.dead(DeadRowQuery.all(100))).extracting(OutboxRow::actionType).containsOnly("set_timer");
        assertThat(outbox.pending(100, clock.instant())).extracting(OutboxRow::outboxId).containsExactlyInAnyOrderElementsOf(ids);
    }

    @Test
    final void pruneDeletesOnlyDispatchedRowsOlderThanTheCutoffInBatches() {
        for (int i = 0; i < 3; i++) {
            stageAsk(T0);
        }
        List<OutboxRow> claimed = outbox.pending(100, T0);
        for (OutboxRow row : claimed) {
            if (row.actionType().equals("send_sms")) {
                outbox.markDispatched(row.outboxId(), row.claimToken(), "ok");
            } else {
                outbox.markFailed(row.outboxId(), row.claimToken(), "gone", null);
            }
        }
        clock.advance(Duration.ofDays(8));
        String fresh = stageAsk(clock.instant());
        OutboxRow freshRow = claimOnly(fresh);
        outbox.markDispatched(fresh, freshRow.claimToken(), "ok");

        assertThat(outbox.pruneDispatched(clock.instant().minus(Duration.ofDays(7)), 2)).isEqualTo(2);
        assertThat(outbox.pruneDispatched(clock.instant().minus(Duration.ofDays(7)), 2)).isEqualTo(1);
        assertThat(outbox.pruneDispatched(clock.instant().minus(Duration.ofDays(7)), 2)).isZero();

        assertThat(outbox.find(fresh)).isPresent();
        assertThat(outbox.dead(DeadRowQuery.all(100))).hasSize(3);
    }

    @Test
    final void eightClaimersAndAThousandRowsClaimEachRowExactlyOnce() throws Exception {
        eightClaimersClaimEachOfAThousandRowsOnce(() -> outbox.pending(7, T0));
    }

    @Test
    final void eightClaimersAskingPerChannelClaimEachRowExactlyOnce() throws Exception {
        eightClaimersClaimEachOfAThousandRowsOnce(() -> outbox.pending(Map.of(Channel.SMS, 4, Channel.INTERNAL, 3), T0));
    }

    @Test
    final void aClaimPerChannelTakesEachChannelsOwnNumberOldestFirst() {
        List<String> sms = List.of(stageAsk(T0), stageAsk(T0.plusSeconds(1)), stageAsk(T0.plusSeconds(2)));
        Instant now = T0.plusSeconds(10);

        List<OutboxRow> first = outbox.pending(Map.of(Channel.SMS, 2), now);
        List<OutboxRow> second = outbox.pending(Map.of(Channel.INTERNAL, 1, Channel.SMS, 5, Channel.SLACK, 3, Channel.HERO, 0), now);

        if (oldestFirstAcrossLoads()) {
            assertThat(first).extracting(OutboxRow::outboxId).as("the two oldest").containsExactlyInAnyOrder(sms.get(0), sms.get(1));
            assertThat(second).extracting(OutboxRow::outboxId).containsExactlyInAnyOrder(
                    sms.get(2), sms.get(0).replace("/send_sms", "/set_timer"));
        } else {
            assertThat(first).extracting(OutboxRow::outboxId).as("two of the three").hasSize(2).isSubsetOf(sms);
            List<String> rest = sms.stream().filter(id -> first.stream().noneMatch(row -> row.outboxId().equals(id))).toList();
            assertThat(second).extracting(OutboxRow::outboxId).as("the third and one set_timer").hasSize(2).containsAll(rest)
                    .anySatisfy(id -> assertThat(id).endsWith("/set_timer"));
        }
        assertThat(second).allSatisfy(row -> assertThat(row.claimedUntil()).isEqualTo(now.plus(LEASE)));
        assertThat(outbox.pending(Map.of(), now)).isEmpty();
        assertThat(outbox.pending(Map.of(Channel.INTERNAL, 10), now)).as("the set_timer rows left").hasSize(2);
    }

    /**
     * Eight threads claim with {@code claim} until nothing is left of 1,000 rows (500 asks); each
     * row once. A claimer stops at its first empty claim: a claim skips only the rows others
     * hold, so it comes back empty only when every row left is being claimed by another.
     */
    private void eightClaimersClaimEachOfAThousandRowsOnce(Callable<List<OutboxRow>> claim) throws Exception {
        for (int i = 0; i < 500; i++) {
            stageAsk(T0);
        }
        Map<String, AtomicInteger> claims = new ConcurrentHashMap<>();
        List<Callable<Integer>> claimers = new ArrayList<>();
        for (int c = 0; c < 8; c++) {
            claimers.add(() -> {
                int mine = 0;
                while (true) {
                    List<OutboxRow> batch = claim.call();
                    if (batch.isEmpty()) {
                        return mine;
                    }
                    for (OutboxRow row : batch) {
                        claims.computeIfAbsent(row.outboxId(), k -> new AtomicInteger()).incrementAndGet();
                        outbox.markDispatched(row.outboxId(), row.claimToken(), "ok");
                        mine++;
                    }
                }
            });
        }
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Integer> perClaimer = new ArrayList<>();
        try {
            for (Future<Integer> done : pool.invokeAll(claimers)) {
                perClaimer.add(done.get());
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(claims).hasSize(1000);
        assertThat(claims.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
        assertThat(perClaimer.stream().mapToInt(Integer::intValue).sum()).isEqualTo(1000);
        assertThat(perClaimer.stream().filter(n -> n > 0).count()).as("claimers that got work").isGreaterThan(1);
        assertThat(outbox.pending(10, T0.plus(Duration.ofDays(1)))).isEmpty();
    }
}

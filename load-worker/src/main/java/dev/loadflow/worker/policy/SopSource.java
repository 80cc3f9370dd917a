package dev.loadflow.worker.policy;

import dev.loadflow.model.event.SopRef;
import dev.loadflow.model.policy.SopBook;
import dev.loadflow.model.policy.SopRules;
import dev.loadflow.store.pg.WakeupSignal;
import dev.loadflow.store.sop.SopVersion;
import dev.loadflow.store.sop.SopVersions;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Each client's SOP as the policies read it: the client's newest stored version ({@code sop_version}),
 * else the configured rules ({@code loadflow.sop.clients.<id>.*}, then {@code loadflow.sop.default.*}).
 * The stored versions are held in memory and read again when a version is added (the signal of
 * {@code NOTIFY loadflow_sop}, sent after the version commits, from any worker) and at least every
 * {@code maxAge}, should a notification be lost with its connection. A read that fails keeps the
 * versions held before it.
 *
 * <p>An open ask keeps the version that opened it ({@link #at}): a version is never changed, so
 * one read is kept for good, and a client's history is read once when one of its versions is asked
 * for that is not held.
 */
public final class SopSource implements SopBook {

    private static final Logger LOG = Logger.getLogger(SopSource.class);

    private final SopVersions versions;
    private final Function<String, SopRules> configured;
    private final WakeupSignal changed;
    private final Clock clock;
    private final Duration maxAge;
    private volatile Held held;
    private final Map<SopRef, SopVersion> older = new ConcurrentHashMap<>();

    /** The versions held, the signal's generation when they were read, and when. */
    private record Held(Map<String, SopVersion> byClient, long generation, Instant readAt) {
    }

    /**
     * @param configured the rules of a client with no stored version (and of {@code null}: an unassigned load)
     * @param changed    fired when a version was added
     */
    public SopSource(SopVersions versions, Function<String, SopRules> configured, WakeupSignal changed, Clock clock,
                     Duration maxAge) {
        this.versions = versions;
        this.configured = configured;
        this.changed = changed;
        this.clock = clock;
        this.maxAge = maxAge;
    }

    @Override
    public Sop current(String clientId) {
        return version(clientId).map(v -> new Sop(new SopRef(clientId, v.version()), v.rules()))
                .orElseGet(() -> new Sop(new SopRef(clientId, SopRef.CONFIGURED), configured.apply(clientId)));
    }

    @Override
    public Sop at(String clientId, int version) {
        if (version == SopRef.CONFIGURED || clientId == null) {
            return new Sop(new SopRef(clientId, SopRef.CONFIGURED), configured.apply(clientId));
        }
        Optional<SopVersion> newest = version(clientId);
        if (newest.isPresent() && newest.get().version() == version) {
            return new Sop(new SopRef(clientId, version), newest.get().rules());
        }
        SopRef ref = new SopRef(clientId, version);
        SopVersion kept = older.get(ref);
        if (kept == null) {
            versions.history(clientId).forEach(v -> older.putIfAbsent(new SopRef(clientId, v.version()), v));
            kept = older.get(ref);
        }
        if (kept == null) {
            throw new IllegalStateException("client " + clientId + " has no SOP version " + version);
        }
        return new Sop(ref, kept.rules());
    }

    /** The client's newest stored version, if it has one. */
    public Optional<SopVersion> version(String clientId) {
        return clientId == null ? Optional.empty() : Optional.ofNullable(current().byClient().get(clientId));
    }

    private Held current() {
        Held now = held;
        if (now != null && now.generation() == changed.generation() && clock.instant().isBefore(now.readAt().plus(maxAge))) {
            return now;
        }
        synchronized (this) {
            Held again = held;
            if (again != null && again != now) {
                return again;
            }
            long generation = changed.generation();
            try {
                Map<String, SopVersion> byClient = new HashMap<>();
                versions.currents().forEach(version -> byClient.put(version.clientId(), version));
                held = new Held(Map.copyOf(byClient), generation, clock.instant());
            } catch (RuntimeException e) {
                if (now == null) {
                    throw e;
                }
                LOG.warnf("reading the SOPs failed (%s): the versions read at %s decide meanwhile", e.getMessage(), now.readAt());
            }
            return held;
        }
    }
}

package dev.loadflow.service.security;

import io.smallrye.config.ConfigMapping;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The sources that may ingest, and what each may post and for which clients. */
@ConfigMapping(prefix = "loadflow.ingest")
public interface IngestSources {

    /**
     * Comma-separated {@code source:token} pairs (env {@code LOADFLOW_INGEST_TOKENS}); each of
     * these sources may post every ingestible event type, for every client (a local run's form).
     */
    Optional<List<String>> tokens();

    /**
     * Sources by name ({@code loadflow.ingest.sources.<name>.*}, env
     * {@code LOADFLOW_INGEST_SOURCES_<NAME>_TOKEN}): each with its token and the event types it owns.
     */
    Map<String, Source> sources();

    /** How far from the worker's clock an ingested event's {@code occurredAt} may be. */
    @io.smallrye.config.WithName("occurred-at")
    OccurredAt occurredAt();

    /** The window an event's {@code occurredAt} must fall in; outside it, {@code 400}. */
    interface OccurredAt {

        /** How long ago at most (a device replaying what it buffered offline is older than a minute). */
        @io.smallrye.config.WithDefault("P30D")
        java.time.Duration maxAge();

        /** How far ahead at most (a source's clock runs a little fast). */
        @io.smallrye.config.WithDefault("PT15M")
        java.time.Duration maxAhead();
    }

    /** One source. */
    interface Source {

        /**
         * The source's bearer token; while it is rotated, the new and the old one comma-separated
         * (both name this source, so the loads it assigned stay its own).
         */
        String token();

        /**
         * The event types it may post ({@code LoadAssigned}, {@code LocationPing}, {@code InboundSms});
         * absent: none. Another type is refused with {@code 403}.
         */
        Optional<Set<String>> eventTypes();

        /**
         * The client ids it may assign loads for ({@code LoadAssigned.clientId}); absent: none. A
         * {@code LoadAssigned} for another client is refused with {@code 403}, and so is one for a
         * load another source assigned.
         */
        Optional<Set<String>> clients();

        /**
         * How many events a second it may post to one load worker (with a burst of as many), 0 for no
         * limit: past it, {@code 429} with {@code Retry-After}, nothing written.
         */
        @io.smallrye.config.WithDefault("0")
        double rate();
    }
}

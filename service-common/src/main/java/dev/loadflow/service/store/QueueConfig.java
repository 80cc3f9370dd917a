package dev.loadflow.service.store;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/** The load queue, as every service sees it ({@code loadflow.queue.*}). */
@ConfigMapping(prefix = "loadflow.queue")
public interface QueueConfig {

    /** Which queue: {@code postgres} (the default, in the same database) or {@code sqs} (SQS FIFO). */
    @WithDefault("postgres")
    Kind kind();

    /**
     * How long a delivered message stays invisible before it is delivered again. Longer than a
     * run's deadline ({@code loadflow.worker.run-deadline}), so a run that is still within its
     * deadline never sees its message handed to another run. SQS counts it in whole seconds.
     */
    @WithDefault("PT5M")
    Duration visibilityTimeout();

    Sqs sqs();

    enum Kind { POSTGRES, SQS }

    interface Sqs {
        /** The FIFO queue's URL (ends in {@code .fifo}); required when {@code kind=sqs}. */
        Optional<String> url();

        /** The dead-letter FIFO queue poison messages are parked in; required when {@code kind=sqs}. */
        Optional<String> deadLetterUrl();

        /** The AWS region. */
        @WithDefault("us-east-1")
        String region();

        /**
         * An endpoint to use instead of AWS's (e.g. ElasticMQ locally); with it, static local
         * credentials are used. Without it, the SDK's default credentials chain (env, profile,
         * web identity on EKS).
         */
        Optional<URI> endpoint();

        /**
         * How many {@code ReceiveMessage} calls a receive makes at once after its first (each a
         * round trip, bringing one load's run): a batch of 16 loads takes 1 + 15/4 round trips
         * rather than 16. The SDK's client keeps five connections to SQS alive, which ingest's sends
         * and the acks' deletes share; above that, calls open new connections. 1: one after another.
         */
        @WithDefault("4")
        int receiveCallsAtOnce();
    }
}

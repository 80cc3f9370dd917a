package dev.loadflow.service.store;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/** The load queue, as every service sees it. */
@ConfigMapping(prefix = "loadflow.queue")
public interface QueueConfig {

    /**
     * How long a delivered message stays invisible before it is delivered again. Longer than a
     * run's deadline ({@code loadflow.worker.run-deadline}), so a run that is still within its
     * deadline never sees its message handed to another run.
     */
    @WithDefault("PT5M")
    Duration visibilityTimeout();
}

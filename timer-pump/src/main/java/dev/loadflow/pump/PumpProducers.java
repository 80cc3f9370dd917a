package dev.loadflow.pump;

import dev.loadflow.pump.fire.PumpMetrics;
import dev.loadflow.pump.fire.TimerPump;
import dev.loadflow.service.loop.LoopConfig;
import dev.loadflow.service.store.DatabaseAnswers;
import dev.loadflow.store.PgStores;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.timer.TimerStore;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.time.Clock;

/** Wires the plain-Java pump to the Quarkus pool, config and registry. */
@ApplicationScoped
public class PumpProducers {

    @Produces
    @Singleton
    TimerStore timers(PgStores stores, PumpConfig config) {
        return stores.timers(config.claimLease(), null);
    }

    @Produces
    @Singleton
    PumpMetrics metrics(MeterRegistry registry) {
        return new PumpMetrics(registry);
    }

    @Produces
    @Singleton
    TimerPump pump(TimerStore timers, LoadQueue queue, Clock clock, PgNotifications notifications, PumpConfig config,
                   LoopConfig loops, PumpMetrics metrics, DatabaseAnswers database) {
        TimerPump pump = new TimerPump(timers, queue, clock, notifications.signal(PgNotifications.TIMERS), config.batchSize(),
                config.maxSleep(), loops.maxBackoff(), metrics);
        pump.resumeWhen(database);
        return pump;
    }
}

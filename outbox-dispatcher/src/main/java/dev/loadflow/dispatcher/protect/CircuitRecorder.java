package dev.loadflow.dispatcher.protect;

import dev.loadflow.model.action.Channel;
import dev.loadflow.store.outbox.PgChannelCircuits;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Writes this dispatcher's circuit transitions to {@code channel_circuit}, one after another off
 * the sending thread (a transition happens inside a send's bookkeeping). An open circuit is
 * recorded until twice its open time, so a dispatcher that dies with its circuit open leaves a
 * row that expires; each reopening refreshes it. A write that fails is logged and dropped: the
 * table only steers autoscaling.
 */
public final class CircuitRecorder implements ChannelGuards.CircuitListener {

    private static final Logger LOG = Logger.getLogger(CircuitRecorder.class);

    private final PgChannelCircuits circuits;
    private final Clock clock;
    private final ExecutorService writes = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("circuit-recorder").factory());

    public CircuitRecorder(PgChannelCircuits circuits, Clock clock) {
        this.circuits = circuits;
        this.clock = clock;
    }

    @Override
    public void opened(Channel channel, Duration openFor) {
        Instant at = clock.instant();
        write(channel, "open", () -> circuits.opened(channel.wire(), at, at.plus(openFor.multipliedBy(2))));
    }

    @Override
    public void closed(Channel channel) {
        write(channel, "closed", () -> circuits.closed(channel.wire()));
    }

    private void write(Channel channel, String state, Runnable write) {
        writes.execute(() -> {
            try {
                write.run();
            } catch (RuntimeException e) {
                LOG.warnf("could not record the %s circuit of %s: %s", state, channel.wire(), e.getMessage());
            }
        });
    }
}

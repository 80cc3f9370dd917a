package dev.loadflow.dispatcher.fanout;

import com.sun.net.httpserver.HttpServer;
import dev.loadflow.dispatcher.send.ChannelClients;
import dev.loadflow.dispatcher.send.JdkHttpTransport;
import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.dispatcher.send.TestChannelsConfig;
import dev.loadflow.model.action.Action;
import dev.loadflow.store.processed.PgProcessedEvents;
import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A stage change goes to its receivers side by side: a slow receiver does not hold the others' requests back. */
class StageWebhooksTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("stage_webhooks");

    private HttpServer receivers;

    @AfterEach
    void stop() {
        if (receivers != null) {
            receivers.stop(0);
        }
    }

    /**
     * Each receiver answers only once the other's request has reached it too (within 5 s, else it
     * answers 503): called one after the other, the first would wait for a request that comes only
     * after its answer, and the row would be retried.
     */
    @Test
    void receiversAreCalledSideBySide() throws Exception {
        CountDownLatch bothArrived = new CountDownLatch(2);
        receivers = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receivers.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        for (String path : List.of("/crm", "/billing")) {
            receivers.createContext(path, exchange -> {
                exchange.getRequestBody().readAllBytes();
                bothArrived.countDown();
                boolean together;
                try {
                    together = bothArrived.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    together = false;
                }
                exchange.sendResponseHeaders(together ? 204 : 503, -1);
                exchange.close();
            });
        }
        receivers.start();
        String base = "http://127.0.0.1:" + receivers.getAddress().getPort();
        ChannelClients clients = new ChannelClients(TestChannelsConfig.of(
                TestChannelsConfig.endpoint(Optional.empty(), "none", null, null),
                TestChannelsConfig.endpoint(Optional.empty(), "none", null, null)), new JdkHttpTransport(), Clock.systemUTC());
        StageWebhooks webhooks = new StageWebhooks(new PgProcessedEvents(PG.pool()), clients, Duration.ofSeconds(10),
                Clock.systemUTC());

        SendResult result = webhooks.deliver("481207/evt:assigned_1/1/stage_changed", "481207",
                new Action.StageChanged("evt:assigned_1", 1, "in_transit", Instant.parse("2026-11-30T06:55:00Z"),
                        List.of(URI.create(base + "/crm"), URI.create(base + "/billing"))));

        assertThat(result).isInstanceOf(SendResult.Delivered.class);
    }
}

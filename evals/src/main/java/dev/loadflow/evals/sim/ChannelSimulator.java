package dev.loadflow.evals.sim;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The channel services over real HTTP, as loadflow's contract expects them: SMS
 * ({@code POST /sms/messages}), Hero tasks ({@code POST /hero/tasks}), Hero Slack
 * ({@code POST /slack}) and fan-out webhooks ({@code POST /webhooks/{name}}). Each dedupes on
 * {@code Idempotency-Key}: a key already delivered is answered 200 with its first receipt and
 * reaches nobody again. Each can be told to fail, hang or answer slowly.
 */
public final class ChannelSimulator implements AutoCloseable {

    /**
     * One message that reached its recipient (the first delivery of its key);
     * {@code receivedNanos} is {@link System#nanoTime()} at its arrival, for latency figures;
     * {@code traceparent} the request's W3C trace header (null without one).
     */
    public record Delivery(String channel, String idempotencyKey, String body, int sequence, long receivedNanos,
                           String traceparent) {
    }

    private final HttpServer server;
    private final PrintStream log;
    private volatile Consumer<Delivery> listener = delivery -> { };
    private final AtomicInteger sequence = new AtomicInteger();
    private final Map<String, String> receipts = new ConcurrentHashMap<>();
    private final List<Delivery> deliveries = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
    private final Map<String, Behaviour> behaviours = new ConcurrentHashMap<>();

    private sealed interface Behaviour {
        record Fail(int status, AtomicInteger remaining) implements Behaviour {
        }

        record Hold(CountDownLatch release, int statusAfter) implements Behaviour {
        }

        record Slow(Duration delay) implements Behaviour {
        }
    }

    private ChannelSimulator(HttpServer server, PrintStream log) {
        this.server = server;
        this.log = log;
    }

    /** Starts on {@code port} (0: any free port); {@code log} prints every delivery (null: silent). */
    public static ChannelSimulator start(int port, PrintStream log) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        ChannelSimulator simulator = new ChannelSimulator(server, log);
        server.createContext("/", simulator::handle);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
        return simulator;
    }

    public URI base() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The next {@code times} requests to {@code channel} answer {@code status}. */
    public void failNext(String channel, int status, int times) {
        behaviours.put(channel, new Behaviour.Fail(status, new AtomicInteger(times)));
    }

    /** Every request to {@code channel} answers {@code status} until {@link #heal}. */
    public void failAlways(String channel, int status) {
        behaviours.put(channel, new Behaviour.Fail(status, new AtomicInteger(Integer.MAX_VALUE)));
    }

    /** Requests to {@code channel} wait until the returned latch is released, then answer {@code statusAfter}. */
    public CountDownLatch hold(String channel, int statusAfter) {
        CountDownLatch release = new CountDownLatch(1);
        behaviours.put(channel, new Behaviour.Hold(release, statusAfter));
        return release;
    }

    /** Requests to {@code channel} are answered after {@code delay}. */
    public void slow(String channel, Duration delay) {
        behaviours.put(channel, new Behaviour.Slow(delay));
    }

    public void heal(String channel) {
        behaviours.remove(channel);
    }

    /**
     * Calls {@code listener} with each message as it reaches its recipient (each key once), on
     * the simulator's thread: keep it short.
     */
    public void onDelivery(Consumer<Delivery> listener) {
        this.listener = listener;
    }

    /** Messages that reached recipients, in order (each key once). */
    public List<Delivery> delivered(String channel) {
        synchronized (deliveries) {
            return deliveries.stream().filter(d -> d.channel().equals(channel)).toList();
        }
    }

    /** Requests received for {@code key} on {@code channel}, duplicates and failures included. */
    public int requests(String channel, String key) {
        return requests.getOrDefault(channel + " " + key, new AtomicInteger()).get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            String channel = channelOf(path);
            String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            String traceparent = exchange.getRequestHeaders().getFirst("traceparent");
            String body = read(exchange.getRequestBody());
            if (channel == null || !"POST".equals(exchange.getRequestMethod()) || key == null) {
                answer(exchange, 400, "{\"error\":\"POST a known channel with an Idempotency-Key\"}");
                return;
            }
            requests.computeIfAbsent(channel + " " + key, k -> new AtomicInteger()).incrementAndGet();
            Behaviour behaviour = behaviours.get(channel);
            int status = 200;
            switch (behaviour) {
                case Behaviour.Fail fail when fail.remaining().getAndDecrement() > 0 -> {
                    answer(exchange, fail.status(), "{\"error\":\"simulated " + fail.status() + "\"}");
                    return;
                }
                case Behaviour.Hold hold -> {
                    if (!hold.release().await(60, TimeUnit.SECONDS)) {
                        answer(exchange, 504, "{\"error\":\"held too long\"}");
                        return;
                    }
                    status = hold.statusAfter();
                    if (status >= 300) {
                        answer(exchange, status, "{\"error\":\"simulated " + status + " after hold\"}");
                        return;
                    }
                }
                case Behaviour.Slow slow -> Thread.sleep(slow.delay().toMillis());
                case null, default -> {
                }
            }
            String receipt = receipts.computeIfAbsent(channel + " " + key, k -> {
                int n = sequence.incrementAndGet();
                Delivery delivery = new Delivery(channel, key, body, n, System.nanoTime(), traceparent);
                deliveries.add(delivery);
                listener.accept(delivery);
                if (log != null) {
                    log.printf("  [%s] %s%n         %s%n", channel, key, body);
                }
                return "{\"id\":\"" + channel + "-" + n + "\"}";
            });
            answer(exchange, status, receipt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String channelOf(String path) {
        if (path.equals("/sms/messages")) {
            return "sms";
        }
        if (path.equals("/hero/tasks")) {
            return "hero";
        }
        if (path.equals("/slack")) {
            return "slack";
        }
        if (path.startsWith("/webhooks/") && path.length() > "/webhooks/".length()) {
            return "webhook:" + path.substring("/webhooks/".length());
        }
        return null;
    }

    private static String read(InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}

package dev.loadflow.evals.sim;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.regex.Pattern;
import dev.loadflow.model.json.JsonReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The channel services over real HTTP, as loadflow's contract expects them: SMS
 * ({@code POST /sms/messages}), Hero tasks ({@code POST /hero/tasks}), Hero Slack
 * ({@code POST /slack}) and fan-out webhooks ({@code POST /webhooks/{name}}). Each dedupes on
 * {@code Idempotency-Key}: a key already delivered is answered 200 with its first receipt and
 * reaches nobody again. Each can be told to fail, hang or answer slowly.
 *
 * <p>It also speaks two providers' own APIs, in the shapes they publish: Twilio's Messages API
 * under {@code /twilio} ({@code POST} and {@code GET .../2010-04-01/Accounts/{AccountSid}/Messages.json},
 * form-encoded, Basic auth: SMS, keeping no idempotency key, as Twilio keeps none) and Slack's
 * {@code POST /slack-api/chat.postMessage} (bearer token: Hero Slack). Their messages are the
 * {@code sms} and {@code slack} channels' deliveries, keyed by the provider's id.
 *
 * <p>Served by Vert.x on one event loop of its own: a channel answering at once costs the
 * machine little, so that a benchmark measures loadflow rather than its channels. A held
 * request waits on a virtual thread, a slow one on a timer.
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

    private final Vertx vertx;
    private final HttpServer server;
    private final PrintStream log;
    private volatile Consumer<Delivery> listener = delivery -> { };
    private final AtomicInteger sequence = new AtomicInteger();
    private final Map<String, String> receipts = new ConcurrentHashMap<>();
    private final List<Delivery> deliveries = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
    private final Map<String, Behaviour> behaviours = new ConcurrentHashMap<>();

    private sealed interface Behaviour {
        /** @param retryAfter the {@code Retry-After} it answers with (seconds), or null for none */
        record Fail(int status, AtomicInteger remaining, Long retryAfter) implements Behaviour {
            Fail(int status, AtomicInteger remaining) {
                this(status, remaining, null);
            }
        }

        record Hold(CountDownLatch release, int statusAfter) implements Behaviour {
        }

        record Slow(Duration delay) implements Behaviour {
        }
    }

    private ChannelSimulator(Vertx vertx, HttpServer server, PrintStream log) {
        this.vertx = vertx;
        this.server = server;
        this.log = log;
    }

    /** Starts on {@code port} (0: any free port); {@code log} prints every delivery (null: silent). */
    public static ChannelSimulator start(int port, PrintStream log) throws IOException {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1));
        HttpServer server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(port)
                .setHttp2ClearTextEnabled(false));
        ChannelSimulator simulator = new ChannelSimulator(vertx, server, log);
        server.requestHandler(simulator::handle);
        try {
            server.listen().toCompletionStage().toCompletableFuture().join();
        } catch (CompletionException e) {
            vertx.close();
            throw new IOException("the channel simulator could not listen on port " + port, e.getCause());
        }
        return simulator;
    }

    public URI base() {
        return URI.create("http://127.0.0.1:" + server.actualPort());
    }

    /** The next {@code times} requests to {@code channel} answer {@code status}. */
    public void failNext(String channel, int status, int times) {
        behaviours.put(channel, new Behaviour.Fail(status, new AtomicInteger(times)));
    }

    /** Every request to {@code channel} answers {@code status} until {@link #heal}. */
    public void failAlways(String channel, int status) {
        behaviours.put(channel, new Behaviour.Fail(status, new AtomicInteger(Integer.MAX_VALUE)));
    }

    /** Every request to {@code channel} answers {@code status} with {@code Retry-After: retryAfter} until {@link #heal}. */
    public void failAlways(String channel, int status, Duration retryAfter) {
        behaviours.put(channel, new Behaviour.Fail(status, new AtomicInteger(Integer.MAX_VALUE), retryAfter.toSeconds()));
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

    private static final Pattern TWILIO_MESSAGES = Pattern.compile("/twilio/2010-04-01/Accounts/(AC[0-9a-fA-F]{32})/Messages\\.json");
    private static final DateTimeFormatter RFC_2822 = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);
    private final Clock clock = Clock.systemUTC();
    /** The messages Twilio's API was asked to send, newest first, as its list answers them. */
    private final java.util.Deque<TwilioMessage> twilioMessages = new java.util.concurrent.ConcurrentLinkedDeque<>();

    /** A message resource as Twilio's Messages API answers it (the fields loadflow reads, and a few more). */
    record TwilioMessage(@JsonProperty("account_sid") String accountSid, @JsonProperty("api_version") String apiVersion,
                         String body, @JsonProperty("date_created") String dateCreated, @JsonProperty("date_sent") String dateSent,
                         String direction, String from, @JsonProperty("num_segments") String numSegments, String sid,
                         String status, String to) {
    }

    /** A page of Twilio's message list. */
    record TwilioMessagePage(int page, @JsonProperty("page_size") int pageSize, List<TwilioMessage> messages) {
    }

    /** What the simulator records of an SMS sent through Twilio, as it records one of the generic channel. */
    record SentSms(String to, String text) {
    }

    /** Slack's answer to a {@code chat.postMessage} that posted. */
    record SlackPosted(boolean ok, String channel, String ts) {
    }

    private static String json(Object value) {
        try {
            return JsonReader.MAPPER.writeValueAsString(value);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private void handle(HttpServerRequest request) {
        if (request.path().startsWith("/twilio/")) {
            twilio(request);
            return;
        }
        if (request.path().equals("/slack-api/chat.postMessage")) {
            slackApi(request);
            return;
        }
        String channel = channelOf(request.path());
        String key = request.getHeader("Idempotency-Key");
        String traceparent = request.getHeader("traceparent");
        request.body().onSuccess(buffer -> {
            if (channel == null || request.method() != HttpMethod.POST || key == null) {
                answer(request, 400, "{\"error\":\"POST a known channel with an Idempotency-Key\"}");
                return;
            }
            String body = buffer.toString();
            requests.computeIfAbsent(channel + " " + key, k -> new AtomicInteger()).incrementAndGet();
            behave(channel, request, status -> answer(request, status, "{\"error\":\"simulated " + status + "\"}"),
                    () -> deliver(request, 200, channel, key, body, traceparent));
        });
    }

    /** Twilio's Messages API: create (form-encoded) and list ({@code To}), with Basic auth, answered as Twilio answers. */
    private void twilio(HttpServerRequest request) {
        request.body().onSuccess(buffer -> {
            java.util.regex.Matcher path = TWILIO_MESSAGES.matcher(request.path());
            if (!path.matches()) {
                answer(request, 404, "{\"code\": 20404, \"message\": \"The requested resource was not found\", \"status\": 404}");
                return;
            }
            String auth = request.getHeader("Authorization");
            if (auth == null || !auth.startsWith("Basic ")) {
                answer(request, 401, "{\"code\": 20003, \"message\": \"Authenticate\", \"status\": 401}");
                return;
            }
            if (request.method() == HttpMethod.GET) {
                String to = request.getParam("To");
                answer(request, 200, json(new TwilioMessagePage(0, 50, twilioMessages.stream()
                        .filter(m -> to == null || to.equals(m.to())).limit(50).toList())));
                return;
            }
            Map<String, String> form = new java.util.LinkedHashMap<>();
            new io.netty.handler.codec.http.QueryStringDecoder(buffer.toString(), false).parameters()
                    .forEach((name, values) -> form.put(name, values.getFirst()));
            if (form.get("To") == null || (form.get("From") == null && form.get("MessagingServiceSid") == null)) {
                answer(request, 400, "{\"code\": 21604, \"message\": \"A 'To' and a 'From' or 'MessagingServiceSid' are required\", \"status\": 400}");
                return;
            }
            Fault fault = fault();
            if (fault == Fault.ERROR_500 || fault == Fault.TOO_MANY_429) {
                int status = fault == Fault.ERROR_500 ? 500 : 429;
                answer(request, status, "{\"code\": " + (status == 429 ? 20429 : 20500) + ", \"message\": \"simulated "
                        + status + "\", \"status\": " + status + "}");
                return;
            }
            behave("sms", request, status -> answer(request, status, "{\"code\": " + (status == 429 ? 20429 : 20500)
                    + ", \"message\": \"simulated " + status + "\", \"status\": " + status + "}"), () -> {
                int n = sequence.incrementAndGet();
                String sid = "SM" + String.format("%032x", n);
                TwilioMessage message = new TwilioMessage(path.group(1), "2010-04-01", form.get("Body"),
                        RFC_2822.format(clock.instant()), null, "outbound-api", form.getOrDefault("From", "+15557770000"), "1", sid,
                        "queued", form.get("To"));
                twilioMessages.addFirst(message);
                String callback = form.get("StatusCallback");
                twilioRows.put(sid, callback == null ? "" : outboxIdOf(callback));
                record("sms", sid, json(new SentSms(form.get("To"), form.get("Body"))), n, null);
                if (callback != null) {
                    reportStatus(callback, message);
                }
                switch (fault) {
                    // created, and the answer never comes in time: the client's timeout ends the request
                    case CREATED_THEN_HANG -> vertx.setTimer(15_000, timer -> answerIfStillOpen(request, 201, json(message)));
                    // created, and the connection is lost before the answer
                    case CREATED_THEN_DROP -> request.connection().close();
                    case null, default -> answer(request, 201, json(message));
                }
            });
        });
    }

    /** What a provider that keeps no idempotency key may do to a request, in a chaos run. */
    private enum Fault { ERROR_500, TOO_MANY_429, CREATED_THEN_HANG, CREATED_THEN_DROP }

    private volatile double faultRate;
    private java.util.Random faultDice = new java.util.Random(1);
    /** The Twilio account's auth token, which signs the status callbacks (none: no callbacks are sent). */
    private volatile String twilioAuthToken;
    /** Each Twilio message's row, as its status callback named it ({@code ""}: none named). */
    private final Map<String, String> twilioRows = new ConcurrentHashMap<>();
    private volatile io.vertx.core.http.HttpClient callbacks;

    /**
     * From now on Twilio's API and Slack's answer a share {@code rate} of their requests as a
     * provider's bad moments do, each fault equally likely: {@code 500} and {@code 429} before
     * anything is made, the message made and then no answer for 15 s, or the message made and the
     * connection lost before the answer. {@code seed} makes a run's faults repeatable.
     */
    public synchronized void providerFaults(double rate, long seed) {
        faultDice = new java.util.Random(seed);
        faultRate = rate;
    }

    private final Map<String, AtomicInteger> faultsMet = new ConcurrentHashMap<>();

    private synchronized Fault fault() {
        if (faultRate <= 0 || faultDice.nextDouble() >= faultRate) {
            return null;
        }
        Fault fault = Fault.values()[faultDice.nextInt(Fault.values().length)];
        faultsMet.computeIfAbsent(fault.name().toLowerCase(java.util.Locale.ROOT), f -> new AtomicInteger()).incrementAndGet();
        return fault;
    }

    /** The provider faults met so far, by kind. */
    public Map<String, Integer> faultsMet() {
        Map<String, Integer> met = new java.util.TreeMap<>();
        faultsMet.forEach((kind, n) -> met.put(kind, n.get()));
        return met;
    }

    /** From now on each Twilio message with a {@code StatusCallback} is reported there, signed with {@code authToken}. */
    public void statusCallbacks(String authToken) {
        this.twilioAuthToken = authToken;
        this.callbacks = vertx.createHttpClient();
    }

    /** The Twilio messages made so far: sid to the outbox id its status callback named ({@code ""}: none). */
    public Map<String, String> twilioMessageRows() {
        return Map.copyOf(twilioRows);
    }

    private static String outboxIdOf(String callback) {
        String query = URI.create(callback).getRawQuery();
        if (query == null) {
            return "";
        }
        return new io.netty.handler.codec.http.QueryStringDecoder("?" + query).parameters()
                .getOrDefault("outboxId", List.of("")).getFirst();
    }

    /**
     * Posts the message's status to {@code callback} as Twilio does, a moment after it was made:
     * form-encoded, signed in {@code X-Twilio-Signature} (HMAC-SHA1 of the URL and the sorted
     * fields, under the auth token). Not retried when it fails, as Twilio does not.
     */
    private void reportStatus(String callback, TwilioMessage message) {
        String token = twilioAuthToken;
        if (token == null) {
            return;
        }
        Map<String, String> form = new java.util.TreeMap<>();
        form.put("AccountSid", message.accountSid());
        form.put("ApiVersion", "2010-04-01");
        form.put("From", message.from());
        form.put("MessageSid", message.sid());
        form.put("MessageStatus", "sent");
        form.put("SmsSid", message.sid());
        form.put("SmsStatus", "sent");
        form.put("To", message.to());
        StringBuilder signed = new StringBuilder(callback);
        form.forEach((name, value) -> signed.append(name).append(value));
        String signature;
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA1");
            mac.init(new javax.crypto.spec.SecretKeySpec(token.getBytes(java.nio.charset.StandardCharsets.UTF_8), "HmacSHA1"));
            signature = java.util.Base64.getEncoder().encodeToString(
                    mac.doFinal(signed.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        String body = form.entrySet().stream().map(e -> java.net.URLEncoder.encode(e.getKey(), java.nio.charset.StandardCharsets.UTF_8)
                + "=" + java.net.URLEncoder.encode(e.getValue(), java.nio.charset.StandardCharsets.UTF_8))
                .collect(java.util.stream.Collectors.joining("&"));
        vertx.setTimer(200, timer -> callbacks.request(new io.vertx.core.http.RequestOptions().setMethod(HttpMethod.POST)
                        .setAbsoluteURI(callback).putHeader("Content-Type", "application/x-www-form-urlencoded")
                        .putHeader("X-Twilio-Signature", signature))
                .compose(req -> req.send(body))
                .onFailure(e -> { })); // a callback that cannot be delivered is lost, as at Twilio
    }

    /** Slack's {@code chat.postMessage} with a bot token: {@code {"ok": true, "channel", "ts"}}. */
    private void slackApi(HttpServerRequest request) {
        request.body().onSuccess(buffer -> {
            String auth = request.getHeader("Authorization");
            if (auth == null || !auth.startsWith("Bearer ")) {
                answer(request, 200, "{\"ok\": false, \"error\": \"not_authed\"}");
                return;
            }
            Fault fault = fault();
            if (fault == Fault.ERROR_500 || fault == Fault.TOO_MANY_429) {
                answer(request, fault == Fault.ERROR_500 ? 500 : 429, "{\"ok\": false, \"error\": \""
                        + (fault == Fault.TOO_MANY_429 ? "ratelimited" : "internal_error") + "\"}");
                return;
            }
            behave("slack", request, status -> answer(request, status, "{\"ok\": false, \"error\": \""
                    + (status == 429 ? "ratelimited" : "internal_error") + "\"}"), () -> {
                int n = sequence.incrementAndGet();
                String ts = clock.instant().getEpochSecond() + "." + String.format("%06d", n);
                record("slack", ts, buffer.toString(), n, null);
                String answer = json(new SlackPosted(true, "C0HEROSIM", ts));
                switch (fault) {
                    case CREATED_THEN_HANG -> vertx.setTimer(15_000, timer -> answerIfStillOpen(request, 200, answer));
                    case CREATED_THEN_DROP -> request.connection().close();
                    case null, default -> answer(request, 200, answer);
                }
            });
        });
    }

    /** What {@code channel} was told to do: fail (its status), hold, answer slowly, or {@code succeed} at once. */
    private void behave(String channel, HttpServerRequest request, java.util.function.IntConsumer fail, Runnable succeed) {
        switch (behaviours.get(channel)) {
            case Behaviour.Fail failing when failing.remaining().getAndDecrement() > 0 -> {
                if (failing.retryAfter() != null) {
                    request.response().putHeader("Retry-After", Long.toString(failing.retryAfter()));
                }
                fail.accept(failing.status());
            }
            case Behaviour.Hold hold -> Thread.ofVirtual().name("channel-simulator-hold").start(() -> {
                try {
                    if (!hold.release().await(60, TimeUnit.SECONDS) || hold.statusAfter() >= 300) {
                        fail.accept(hold.statusAfter() >= 300 ? hold.statusAfter() : 504);
                    } else {
                        succeed.run();
                    }
                } catch (InterruptedException e) {
                    request.connection().close();
                }
            });
            case Behaviour.Slow slow -> vertx.setTimer(Math.max(1, slow.delay().toMillis()), timer -> succeed.run());
            case null, default -> succeed.run();
        }
    }

    /** A message that reached its recipient. */
    private void record(String channel, String key, String body, int n, String traceparent) {
        Delivery delivery = new Delivery(channel, key, body, n, System.nanoTime(), traceparent);
        deliveries.add(delivery);
        listener.accept(delivery);
        if (log != null) {
            log.printf("  [%s] %s%n         %s%n", channel, key, body);
        }
    }

    /** The message reaches its recipient unless its key already did; answers with the key's first receipt. */
    private void deliver(HttpServerRequest request, int status, String channel, String key, String body,
                         String traceparent) {
        String receipt = receipts.computeIfAbsent(channel + " " + key, k -> {
            int n = sequence.incrementAndGet();
            record(channel, key, body, n, traceparent);
            return "{\"id\":\"" + channel + "-" + n + "\"}";
        });
        answer(request, status, receipt);
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

    /** An answer that comes late: the client may have given up and closed the connection meanwhile. */
    private static void answerIfStillOpen(HttpServerRequest request, int status, String body) {
        if (!request.response().closed() && !request.response().ended()) {
            try {
                answer(request, status, body);
            } catch (IllegalStateException closedMeanwhile) {
                // the client went: the answer is lost, as a provider's is
            }
        }
    }

    private static void answer(HttpServerRequest request, int status, String body) {
        request.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body);
    }

    @Override
    public void close() {
        server.close().toCompletionStage().toCompletableFuture().join();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }
}

package dev.loadflow.dispatcher.provider;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loadflow.dispatcher.send.ChannelTransport;
import dev.loadflow.dispatcher.send.Reconciler;
import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.provider.ProviderMessages;
import org.jboss.logging.Logger;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * SMS through Twilio's Messages API, as its published description (twilio_api_v2010) defines it:
 * {@code POST /2010-04-01/Accounts/{AccountSid}/Messages.json}, form-encoded {@code To},
 * {@code Body}, and {@code From} or {@code MessagingServiceSid} (and {@code StatusCallback} when
 * set), HTTP Basic with the account SID and auth token. A {@code 201} is the message accepted
 * (queued to the carrier, not yet on the handset): delivered as far as loadflow can know, with
 * the message's {@code sid} as the receipt.
 *
 * <p>Twilio keeps no idempotency key, so each send is made recognisable instead: its
 * {@code StatusCallback} names the row ({@code ?outboxId=…}), so Twilio's status callbacks tell
 * which message is whose, and the {@code sid} of every message Twilio answers with is recorded as
 * the row's ({@link ProviderMessages}: one message is the receipt of at most one row). A request
 * whose answer was lost may have created the message: before such a row is sent again,
 * {@link #find} takes the message recorded for it if there is one; otherwise it lists the
 * messages to that number ({@code GET Messages.json?To=…}), passes over those other rows hold, and
 * takes the one left (outbound, the same body, created since the row's first attempt) only when
 * no other row could own it. What cannot be told apart is not guessed (docs/adr/0007).
 *
 * <p>Answers: {@code 429} and {@code 5xx} are retryable ({@code Retry-After} honoured); other
 * {@code 4xx} are permanent, with Twilio's error {@code code} and {@code message} in the reason
 * (21211 an invalid {@code To}, 21610 a number that replied STOP, 21614 not a mobile number).
 */
public final class TwilioSms implements Reconciler {

    /** The settings: the account, its auth token, and the sender (a number or a Messaging Service). */
    public record Account(URI apiUrl, String accountSid, String authToken, Optional<String> from,
                          Optional<String> messagingServiceSid, Optional<URI> statusCallback, Duration timeout) {

        public Account {
            Objects.requireNonNull(apiUrl, "apiUrl");
            if (accountSid == null || !accountSid.matches("AC[0-9a-fA-F]{32}")) {
                throw new IllegalArgumentException("loadflow.channels.sms.twilio.account-sid is AC and 32 hex digits");
            }
            if (authToken == null || authToken.isBlank()) {
                throw new IllegalArgumentException("loadflow.channels.sms.twilio.auth-token is needed (from the Secret)");
            }
            if (from.isPresent() == messagingServiceSid.isPresent()) {
                throw new IllegalArgumentException("set one of loadflow.channels.sms.twilio.from (a number) and "
                        + "loadflow.channels.sms.twilio.messaging-service-sid");
            }
        }
    }

    /** How far back of the first attempt a message counts as the row's: Twilio's clock and ours differ a little. */
    static final Duration CLOCK_SKEW = Duration.ofMinutes(2);
    /** Messages to one number looked at per reconcile (one page; a driver gets far fewer in a row's life). */
    static final int PAGE_SIZE = 50;
    /** How far back of the first attempt another row to the number may have been made and still be sending. */
    static final Duration ROW_REACH = Duration.ofMinutes(10);
    /** The provider's name in {@link ProviderMessages}. */
    public static final String PROVIDER = "twilio";

    private static final Logger LOG = Logger.getLogger(TwilioSms.class);

    /**
     * Where the rows' messages are kept: which message is whose, and the other SMS rows to a
     * number. {@link #NONE} keeps nothing: every message is taken as nobody's (for tests of the
     * protocol alone).
     */
    public record Ledger(ProviderMessages messages, Outbox outbox) {
        public static final Ledger NONE = new Ledger(null, null);

        boolean kept() {
            return messages != null && outbox != null;
        }
    }

    private final Account account;
    private final ChannelTransport transport;
    private final Clock clock;
    private final URI messages;
    private final Map<String, String> auth;
    private final Ledger ledger;

    /** A sender whose messages are recorded nowhere (tests of the protocol alone). */
    public TwilioSms(Account account, ChannelTransport transport, Clock clock) {
        this(account, transport, clock, Ledger.NONE);
    }

    public TwilioSms(Account account, ChannelTransport transport, Clock clock, Ledger ledger) {
        this.ledger = ledger;
        this.account = account;
        this.transport = transport;
        this.clock = clock;
        String base = account.apiUrl().toString().replaceAll("/+$", "");
        this.messages = URI.create(base + "/2010-04-01/Accounts/" + account.accountSid() + "/Messages.json");
        this.auth = Map.of("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                (account.accountSid() + ":" + account.authToken()).getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Creates the message of row {@code outboxId}, its status callback naming the row, and records
     * the message Twilio answers with as the row's; a lost answer is {@link SendResult.Unknown}
     * (Twilio may have it).
     */
    public SendResult send(String outboxId, Action.SendSms sms) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("To", sms.to());
        account.from().ifPresent(from -> form.put("From", from));
        account.messagingServiceSid().ifPresent(service -> form.put("MessagingServiceSid", service));
        form.put("Body", sms.text());
        account.statusCallback().ifPresent(callback -> form.put("StatusCallback", statusCallback(callback, outboxId)));
        Map<String, String> headers = new LinkedHashMap<>(auth);
        headers.put("Content-Type", "application/x-www-form-urlencoded");
        headers.put("Accept", "application/json");
        ChannelTransport.Answer answer;
        try {
            answer = transport.exchange(new ChannelTransport.Request("POST", messages, account.timeout(), headers, encode(form)));
        } catch (ChannelTransport.Unreachable e) {
            return e.mayHaveArrived()
                    ? new SendResult.Unknown("Twilio's answer was lost: " + e.getMessage())
                    : new SendResult.Retryable("Twilio not reached: " + e.getMessage(), Optional.empty());
        }
        if (answer.status() >= 200 && answer.status() < 300) {
            Optional<String> sid = field(answer.body(), "sid");
            sid.ifPresent(message -> recordQuietly(message, outboxId, field(answer.body(), "status").orElse(null)));
            return new SendResult.Delivered(sid.orElse(answer.body()));
        }
        SendResult classified = SendResult.of(answer.status(), answer.body(), answer.retryAfter(), clock);
        return classified instanceof SendResult.Permanent ? new SendResult.Permanent(refusal(answer)) : classified;
    }

    /**
     * The row's message at Twilio: the one recorded for it (its answer, or a status callback naming
     * the row); otherwise, from the list of messages to its number, the one outbound with its body,
     * created since its first attempt (less {@link #CLOCK_SKEW}), that no other row holds, when no
     * other row to that number with that body could own it. Two candidates, or another row that
     * may own the one candidate, cannot be told apart: {@link CannotTell}, never a guess.
     */
    @Override
    public Found find(OutboxRow row, Action action) {
        if (!(action instanceof Action.SendSms sms)) {
            return new CannotTell("only SMS is sent through Twilio, not " + action.type().wire());
        }
        if (ledger.kept()) {
            List<String> recorded = ledger.messages().messagesOf(PROVIDER, row.outboxId());
            if (!recorded.isEmpty()) {
                return new Has(recorded.getFirst());
            }
        }
        Instant since = Optional.ofNullable(row.firstAttemptAt()).orElse(row.createdAt()).minus(CLOCK_SKEW);
        Map<String, String> query = new LinkedHashMap<>();
        query.put("To", sms.to());
        account.from().ifPresent(from -> query.put("From", from));
        query.put("PageSize", Integer.toString(PAGE_SIZE));
        Map<String, String> headers = new LinkedHashMap<>(auth);
        headers.put("Accept", "application/json");
        ChannelTransport.Answer answer;
        try {
            answer = transport.exchange(new ChannelTransport.Request("GET", URI.create(messages + "?" + encode(query)),
                    account.timeout(), headers, null));
        } catch (ChannelTransport.Unreachable e) {
            return new CannotTell("Twilio's message list not reached: " + e.getMessage());
        }
        if (answer.status() != 200) {
            return new CannotTell("Twilio's message list answered " + answer.status() + ": " + refusal(answer));
        }
        JsonNode list;
        try {
            list = JsonReader.MAPPER.readTree(answer.body()).path("messages");
        } catch (Exception e) {
            return new CannotTell("Twilio's message list is not JSON: " + e.getMessage());
        }
        boolean reachesBack = list.size() < PAGE_SIZE;
        Set<String> candidates = new LinkedHashSet<>();
        for (JsonNode message : list) {
            Optional<Instant> created = instant(message.path("date_created").asText(null));
            if (created.isPresent() && created.get().isBefore(since)) {
                reachesBack = true;
                continue;
            }
            if (message.path("direction").asText("").startsWith("outbound") && sms.text().equals(message.path("body").asText(null))) {
                candidates.add(message.path("sid").asText());
            }
        }
        return ownOf(row, sms, candidates, since, reachesBack);
    }

    /** Which of {@code candidates} (messages to the row's number with its body) is the row's, if one surely is. */
    private Found ownOf(OutboxRow row, Action.SendSms sms, Set<String> candidates, Instant since, boolean reachesBack) {
        Set<String> free = new LinkedHashSet<>(candidates);
        List<String> rivals = new ArrayList<>();
        if (ledger.kept()) {
            Map<String, String> holders = ledger.messages().holders(PROVIDER, candidates);
            for (Map.Entry<String, String> held : holders.entrySet()) {
                if (held.getValue().equals(row.outboxId())) {
                    // recorded for this row since its own record was read (its status callback came meanwhile)
                    return new Has(held.getKey());
                }
            }
            free.removeAll(holders.keySet());
            for (OutboxRow other : ledger.outbox().smsTo(sms.to(), since.minus(ROW_REACH))) {
                if (other.outboxId().equals(row.outboxId()) || !sameText(other, sms.text())) {
                    continue;
                }
                if (other.receipt() != null) {
                    free.remove(other.receipt());
                } else if (other.attempts() > 0 && ledger.messages().messagesOf(PROVIDER, other.outboxId()).isEmpty()) {
                    rivals.add(other.outboxId());
                }
            }
        }
        if (free.isEmpty()) {
            return reachesBack ? new HasNot()
                    : new CannotTell("more than " + PAGE_SIZE + " messages to that number since " + since + ": not all looked at");
        }
        if (free.size() > 1 || !rivals.isEmpty()) {
            return new CannotTell(free.size() + " message(s) to that number with this text held by no row, and "
                    + rivals.size() + " other row(s) that may own them " + rivals + ": cannot be told apart");
        }
        String sid = free.iterator().next();
        if (ledger.kept() && ledger.messages().record(PROVIDER, sid, row.outboxId(), null, clock.instant())
                == ProviderMessages.Recorded.HELD_BY_ANOTHER) {
            return new CannotTell(sid + " was taken as another row's meanwhile");
        }
        return new Has(sid);
    }

    private static boolean sameText(OutboxRow other, String text) {
        try {
            return other.action() instanceof Action.SendSms sent && sent.text().equals(text);
        } catch (RuntimeException unreadable) {
            return false;
        }
    }

    /** Records {@code sid} as the row's; a failure to (the database unreachable) leaves it to a later reconcile. */
    private void recordQuietly(String sid, String outboxId, String status) {
        if (!ledger.kept()) {
            return;
        }
        try {
            if (ledger.messages().record(PROVIDER, sid, outboxId, status, clock.instant())
                    == ProviderMessages.Recorded.HELD_BY_ANOTHER) {
                LOG.errorf("Twilio answered %s with message %s, which another row holds: the row keeps it as its receipt",
                        outboxId, sid);
            }
        } catch (RuntimeException e) {
            LOG.warnf("message %s of %s not recorded (%s): its status callback or a reconcile records it", sid, outboxId,
                    e.getMessage());
        }
    }

    /** The status callback of one row's message: the configured URL with {@code outboxId} added to its query. */
    static String statusCallback(URI callback, String outboxId) {
        String url = callback.toString();
        return url + (url.contains("?") ? "&" : "?") + "outboxId=" + URLEncoder.encode(outboxId, StandardCharsets.UTF_8);
    }

    private static String encode(Map<String, String> fields) {
        return fields.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
    }

    /** Twilio's error as it states it: {@code 400 Twilio 21211: The 'To' number … is not a valid phone number.} */
    private static String refusal(ChannelTransport.Answer answer) {
        Optional<String> code = field(answer.body(), "code");
        Optional<String> message = field(answer.body(), "message");
        return answer.status() + (code.isPresent() ? " Twilio " + code.get() : "") + message.map(m -> ": " + m).orElse(
                answer.body() == null || answer.body().isBlank() ? "" : ": " + answer.body().strip());
    }

    private static Optional<String> field(String json, String name) {
        if (json == null || json.isBlank()) {
            return Optional.empty();
        }
        try {
            JsonNode value = JsonReader.MAPPER.readTree(json).path(name);
            return value.isMissingNode() || value.isNull() ? Optional.empty() : Optional.of(value.asText());
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    /** Twilio's timestamps are RFC 2822 in GMT ({@code Wed, 02 Dec 2026 07:00:00 +0000}). */
    static Optional<Instant> instant(String rfc2822) {
        if (rfc2822 == null || rfc2822.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(ZonedDateTime.parse(rfc2822, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}

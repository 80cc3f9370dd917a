package dev.loadflow.console.web;

import dev.loadflow.console.ConsoleConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;

/**
 * What the console signs with {@code loadflow.console.sign-in-key} (HMAC-SHA256): the form token
 * of a session, derived from the session's credential so that it is worth nothing with any other
 * session, and the end of a break-glass session.
 */
@ApplicationScoped
public class SessionKey {

    private static final Logger LOG = Logger.getLogger(SessionKey.class);
    static final int SHORTEST = 32;

    private final SecretKeySpec key;

    @Inject
    SessionKey(ConsoleConfig config) {
        this(config.signInKey().orElse(null), config.cookieSecure(), config.signInCookie(), config.csrfCookie());
    }

    SessionKey(String configured, boolean cookieSecure, String... cookies) {
        for (String cookie : cookies) {
            if (cookie.startsWith("__Host-") && !cookieSecure) {
                throw new IllegalStateException("the cookie " + cookie + " needs loadflow.console.cookie-secure=true: a "
                        + "browser keeps a __Host- cookie only when it is Secure (a plain-HTTP run names its cookies without it)");
            }
        }
        byte[] bytes;
        if (configured == null || configured.isBlank()) {
            bytes = new byte[32];
            new SecureRandom().nextBytes(bytes);
            LOG.warn("loadflow.console.sign-in-key is not set: sessions are signed with a key made at start, so a form "
                    + "opened on one console replica is refused by another and a restart ends break-glass sessions");
        } else if (configured.length() < SHORTEST) {
            throw new IllegalStateException("loadflow.console.sign-in-key must be at least " + SHORTEST + " characters");
        } else {
            bytes = configured.getBytes(StandardCharsets.UTF_8);
        }
        this.key = new SecretKeySpec(bytes, "HmacSHA256");
    }

    /** The form token of the session whose credential is {@code session}. */
    public String formToken(String session) {
        return sign("form|" + digest(session));
    }

    /** Whether {@code given} is the form token of {@code session}, compared in constant time. */
    public boolean isFormToken(String session, String given) {
        return given != null && MessageDigest.isEqual(formToken(session).getBytes(StandardCharsets.US_ASCII),
                given.getBytes(StandardCharsets.US_ASCII));
    }

    /** The value of the cookie that says until when the break-glass session {@code session} lasts. */
    public String until(String session, Instant end) {
        long seconds = end.getEpochSecond();
        return seconds + "." + sign("until|" + seconds + "|" + digest(session));
    }

    /** Whether {@code cookie} is this key's {@link #until} of {@code session} and ends after {@code now}. */
    boolean lastsBeyond(String session, String cookie, Instant now) {
        if (cookie == null) {
            return false;
        }
        int dot = cookie.indexOf('.');
        if (dot < 1) {
            return false;
        }
        long seconds;
        try {
            seconds = Long.parseLong(cookie.substring(0, dot));
        } catch (NumberFormatException e) {
            return false;
        }
        return MessageDigest.isEqual(until(session, Instant.ofEpochSecond(seconds)).getBytes(StandardCharsets.US_ASCII),
                cookie.getBytes(StandardCharsets.US_ASCII)) && now.isBefore(Instant.ofEpochSecond(seconds));
    }

    private String sign(String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(data.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    private static String digest(String session) {
        try {
            return Base64.getUrlEncoder().withoutPadding().encodeToString(
                    MessageDigest.getInstance("SHA-256").digest(session.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}

package dev.loadflow.worker.twilio;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code X-Twilio-Signature} as Twilio computes it for a form-encoded webhook: the URL Twilio
 * requested, then each POST parameter's name and value, sorted by name, signed with HMAC-SHA1
 * under the account's auth token, in base64.
 */
public final class TwilioSignature {

    private TwilioSignature() {
    }

    /** The signature of a request to {@code url} with form {@code params}. */
    public static String of(String url, Map<String, String> params, String authToken) {
        StringBuilder signed = new StringBuilder(url);
        new TreeMap<>(params).forEach((name, value) -> signed.append(name).append(value));
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(authToken.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
            return Base64.getEncoder().encodeToString(mac.doFinal(signed.toString().getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA1 is part of every JDK", e);
        }
    }

    /** Whether {@code signature} is Twilio's for this request (compared in constant time). */
    public static boolean valid(String url, Map<String, String> params, String authToken, String signature) {
        return signature != null && MessageDigest.isEqual(of(url, params, authToken).getBytes(StandardCharsets.UTF_8),
                signature.getBytes(StandardCharsets.UTF_8));
    }
}

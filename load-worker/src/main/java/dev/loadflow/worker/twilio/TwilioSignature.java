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

    /** A form as Twilio posts it: each field's first value. */
    static Map<String, String> fields(jakarta.ws.rs.core.MultivaluedMap<String, String> form) {
        Map<String, String> params = new java.util.LinkedHashMap<>();
        form.forEach((name, values) -> params.put(name, values.isEmpty() ? "" : values.getFirst()));
        return params;
    }

    /** The {@code 403} a request not signed by Twilio gets: nothing of it is written. */
    static jakarta.ws.rs.core.Response refused() {
        return dev.loadflow.service.problem.Problem.of(jakarta.ws.rs.core.Response.Status.FORBIDDEN, "Not signed by Twilio",
                TwilioSmsResource.SIGNATURE + " is not Twilio's signature of this request", TwilioSmsResource.SIGNATURE)
                .response();
    }

    /** Whether {@code signature} is Twilio's for this request (compared in constant time). */
    public static boolean valid(String url, Map<String, String> params, String authToken, String signature) {
        return signature != null && MessageDigest.isEqual(of(url, params, authToken).getBytes(StandardCharsets.UTF_8),
                signature.getBytes(StandardCharsets.UTF_8));
    }
}

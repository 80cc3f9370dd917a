package dev.loadflow.service.testing;

import dev.loadflow.service.security.Roles;
import io.smallrye.jwt.build.Jwt;
import io.smallrye.jwt.build.JwtClaimsBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The callers of a service under test: sources with their ingest tokens, and people with JWTs
 * signed by a key pair made when the test JVM starts (the public key goes to a temporary file
 * the service verifies with; no key is ever written to the repository).
 */
public final class TestCallers {

    public static final String ISSUER = "loadflow";
    /** The audience every service requires ({@code mp.jwt.verify.audiences}). */
    public static final String AUDIENCE = "loadflow";
    public static final String SOURCE = "telematics";
    public static final String INGEST_TOKEN = "ingest-token-of-telematics";
    /** A source that owns one event type only: the SMS gateway, {@code InboundSms}. */
    public static final String SMS_GATEWAY = "sms-gateway";
    public static final String SMS_GATEWAY_TOKEN = "ingest-token-of-the-sms-gateway";

    /** A source paced at one event per 100 s (one in hand at start): its second event within that is refused. */
    public static final String PACED = "paced-telematics";
    public static final String PACED_TOKEN = "ingest-token-of-the-paced-source";
    /** A source named without event types: it owns none. */
    public static final String SILENT = "silent-source";
    public static final String SILENT_TOKEN = "ingest-token-of-the-silent-source";

    /** A TMS that assigns loads for {@code client-a} and {@code client-b}. */
    public static final String TMS_NORTH = "tms-north";
    public static final String TMS_NORTH_TOKEN = "ingest-token-of-tms-north";
    /** Another TMS, that assigns loads for {@code client-a} and {@code client-c}. */
    public static final String TMS_SOUTH = "tms-south";
    public static final String TMS_SOUTH_TOKEN = "ingest-token-of-tms-south";

    private static final KeyPair KEYS = rsa();
    private static final Path PUBLIC_KEY = pem(KEYS);

    private TestCallers() {
    }

    /** The configuration that makes a service trust these callers. */
    public static Map<String, String> config() {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("mp.jwt.verify.publickey.location", PUBLIC_KEY.toString());
        config.put("mp.jwt.verify.issuer", ISSUER);
        config.put("loadflow.ingest.tokens", SOURCE + ":" + INGEST_TOKEN);
        source(config, SMS_GATEWAY, SMS_GATEWAY_TOKEN, "InboundSms");
        source(config, PACED, PACED_TOKEN, "LocationPing").put(key(PACED, "rate"), "0.01");
        config.put(key(SILENT, "token"), SILENT_TOKEN);
        source(config, TMS_NORTH, TMS_NORTH_TOKEN, "LoadAssigned").put(key(TMS_NORTH, "clients"), "client-a,client-b");
        source(config, TMS_SOUTH, TMS_SOUTH_TOKEN, "LoadAssigned").put(key(TMS_SOUTH, "clients"), "client-a,client-c");
        return Map.copyOf(config);
    }

    private static Map<String, String> source(Map<String, String> config, String name, String token, String types) {
        config.put(key(name, "token"), token);
        config.put(key(name, "event-types"), types);
        return config;
    }

    private static String key(String source, String setting) {
        return "loadflow.ingest.sources." + source + "." + setting;
    }

    /** A person who may read: {@code vera}, group {@code loadflow-viewer}. */
    public static String viewer() {
        return jwt("vera", Roles.VIEWER);
    }

    /** A person who may change: {@code otto}, group {@code loadflow-operator}. */
    public static String operator() {
        return jwt("otto", Roles.OPERATOR);
    }

    /** A JWT for {@code subject} with {@code groups}, valid for five minutes. */
    public static String jwt(String subject, String... groups) {
        return claims(subject).groups(Set.of(groups)).sign(KEYS.getPrivate());
    }

    /** The claims of a valid token, to spoil one way or another. */
    public static JwtClaimsBuilder claims(String subject) {
        return Jwt.issuer(ISSUER).audience(AUDIENCE).subject(subject).expiresIn(300);
    }

    /** The PEM text of the public key the services verify with (what a forger can read). */
    public static String publicKeyPem() {
        try {
            return Files.readString(PUBLIC_KEY);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Signs with the test key pair. */
    public static String sign(JwtClaimsBuilder claims) {
        return claims.sign(KEYS.getPrivate());
    }

    /** Signs with a key the service does not know. */
    public static String signWithAnotherKey(JwtClaimsBuilder claims) {
        PrivateKey other = rsa().getPrivate();
        return claims.sign(other);
    }

    private static KeyPair rsa() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path pem(KeyPair keys) {
        try {
            Path file = Files.createTempFile("loadflow-test-jwt-", ".pem");
            file.toFile().deleteOnExit();
            Files.writeString(file, "-----BEGIN PUBLIC KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(keys.getPublic().getEncoded())
                    + "\n-----END PUBLIC KEY-----\n");
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package dev.loadflow.service.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server that speaks TLS only, with a certificate for {@code localhost} signed by a
 * certificate authority this resource makes when it starts (with the JDK's keytool: no key is
 * kept anywhere but a temporary directory). Its {@code pg_hba.conf} takes TCP connections over TLS
 * only ({@code hostssl}), so a service that reaches it at all reached it encrypted; the service
 * under test verifies the server's certificate and name ({@code verify-full}) as a site's overlay
 * makes the services do.
 */
public class TlsPostgresTestResource implements QuarkusTestResourceLifecycleManager {

    /** The database the service uses; the server's superuser is {@code postgres}. */
    public static final String DATABASE = "loadflow_tls";
    private static final String STORE_PASSWORD = "test-only-store";

    private static volatile Path certificates;
    private static volatile int port;
    private EmbeddedPostgres server;

    /** The certificate authority's certificate (PEM): what a client trusts. */
    public static Path authority() {
        return certificates.resolve("ca.crt");
    }

    public static int port() {
        return port;
    }

    /** A JDBC URL of the server's database with {@code query} ({@code sslmode=...} and the like). */
    public static String jdbcUrl(String host, String query) {
        return "jdbc:postgresql://" + host + ":" + port + "/" + DATABASE + "?" + query;
    }

    /** A connection as the server's superuser, over TLS (the server's certificate checked). */
    public static Connection admin() throws SQLException {
        return DriverManager.getConnection(jdbcUrl("localhost", "sslmode=verify-full&sslrootcert=" + authority()), "postgres",
                "postgres");
    }

    @Override
    public Map<String, String> start() {
        try {
            certificates = Files.createTempDirectory("loadflow-tls-");
            makeCertificates(certificates);
            Path hba = certificates.resolve("pg_hba.conf");
            Files.writeString(hba, """
                    local   all all              trust
                    hostssl all all 127.0.0.1/32 trust
                    hostssl all all ::1/128      trust
                    """);
            server = EmbeddedPostgres.builder()
                    .setServerConfig("ssl", "on")
                    .setServerConfig("ssl_cert_file", certificates.resolve("server.crt").toString())
                    .setServerConfig("ssl_key_file", certificates.resolve("server.key").toString())
                    .setServerConfig("hba_file", hba.toString())
                    .setServerConfig("fsync", "off")
                    .setPGStartupWait(Duration.ofMinutes(1))
                    .start();
            port = server.getPort();
            try (Connection admin = DriverManager.getConnection(jdbcUrl("localhost", "sslmode=require").replace(DATABASE,
                    "postgres"), "postgres", "postgres")) {
                admin.createStatement().execute("CREATE DATABASE " + DATABASE);
            }
        } catch (IOException | SQLException | InterruptedException e) {
            throw new IllegalStateException("could not start a PostgreSQL server over TLS", e);
        }
        Map<String, String> config = new HashMap<>(TestCallers.config());
        int management = PostgresTestResource.freePort();
        config.put("quarkus.management.port", String.valueOf(management));
        config.put("quarkus.management.test-port", String.valueOf(management));
        // as a site's overlay sets them: the server's certificate is checked, and its name
        config.put("quarkus.datasource.reactive.url", "postgresql://localhost:" + port + "/" + DATABASE);
        config.put("quarkus.datasource.reactive.postgresql.ssl-mode", "verify-full");
        config.put("quarkus.datasource.reactive.hostname-verification-algorithm", "HTTPS");
        config.put("quarkus.datasource.reactive.trust-certificate-pem", "true");
        config.put("quarkus.datasource.reactive.trust-certificate-pem.certs", authority().toString());
        config.put("quarkus.datasource.jdbc.url", jdbcUrl("localhost", "sslmode=verify-full&sslrootcert=" + authority()));
        config.put("quarkus.datasource.username", "postgres");
        config.put("quarkus.datasource.password", "postgres");
        config.put("quarkus.flyway.username", "postgres");
        config.put("quarkus.flyway.password", "postgres");
        return config;
    }

    /** A certificate authority, and a server certificate for {@code localhost} (and no other name) it signed. */
    private static void makeCertificates(Path dir) throws IOException, InterruptedException {
        keytool(dir, "-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=loadflow test CA",
                "-ext", "bc:c", "-validity", "2", "-keystore", "ca.p12", "-storetype", "PKCS12");
        keytool(dir, "-exportcert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", "-file", "ca.crt");
        keytool(dir, "-genkeypair", "-alias", "server", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=localhost",
                "-validity", "2", "-keystore", "server.p12", "-storetype", "PKCS12");
        keytool(dir, "-certreq", "-alias", "server", "-keystore", "server.p12", "-file", "server.csr");
        keytool(dir, "-gencert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", "-infile", "server.csr", "-outfile",
                "server.crt", "-ext", "SAN=dns:localhost", "-ext", "KU=digitalSignature,keyEncipherment",
                "-ext", "EKU=serverAuth", "-validity", "2");
        try (InputStream in = Files.newInputStream(dir.resolve("server.p12"))) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, STORE_PASSWORD.toCharArray());
            PrivateKey key = (PrivateKey) store.getKey("server", STORE_PASSWORD.toCharArray());
            Path keyFile = dir.resolve("server.key");
            Files.writeString(keyFile, "-----BEGIN PRIVATE KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded())
                    + "\n-----END PRIVATE KEY-----\n");
            // PostgreSQL refuses a key others may read
            Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("the server's key could not be read back", e);
        }
    }

    private static void keytool(Path dir, String... args) throws IOException, InterruptedException {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        List<String> command = new java.util.ArrayList<>(List.of(keytool.toString()));
        command.addAll(List.of(args));
        command.addAll(List.of("-storepass", STORE_PASSWORD, "-noprompt"));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("keytool " + args[0] + " failed: " + output);
        }
    }

    @Override
    public void stop() {
        if (server != null) {
            try {
                server.close();
            } catch (IOException ignored) {
                // the temporary data directory goes with the JVM
            }
        }
    }
}

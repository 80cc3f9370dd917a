package dev.loadflow.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The example site overlay as a site's pipeline prepares it: the manifests copied, and the files
 * its generators read ({@code overlays/site/from-site/README.md}) written, from example values or
 * from the caller's.
 */
public final class SiteOverlay {

    /** Example contents of every file the site overlay reads from from-site/: no real secret. */
    public static final Map<String, String> EXAMPLES = Map.of(
            "services.env", "QUARKUS_DATASOURCE_USERNAME=loadflow_app\nQUARKUS_DATASOURCE_PASSWORD=example\nLOADFLOW_ADMIN_TOKEN=example-admin\n",
            "ingest-tokens.env", "LOADFLOW_INGEST_SOURCES_TELEMATICS_TOKEN=example-telematics\nLOADFLOW_INGEST_SOURCES_TMS_TOKEN=example-tms\n"
                    + "LOADFLOW_INGEST_SOURCES_SMSGATEWAY_TOKEN=example-sms\nLOADFLOW_SOURCES_TWILIO_AUTH_TOKEN=example-twilio\n",
            "dispatcher.env", "LOADFLOW_CHANNELS_SMS_AUTH_SECRET=example-sms-secret\n",
            "retention.env", "LOADFLOW_RETENTION_USERNAME=loadflow_retention_login\nLOADFLOW_RETENTION_PASSWORD=example\n",
            "migrate.env", "QUARKUS_DATASOURCE_USERNAME=loadflow_owner\nQUARKUS_DATASOURCE_PASSWORD=example\n",
            "console.env", "QUARKUS_DATASOURCE_USERNAME=loadflow_console\nQUARKUS_DATASOURCE_PASSWORD=example\n"
                    + "LOADFLOW_ADMIN_TOKEN=example-admin\nLOADFLOW_CONSOLE_SIGN_IN_KEY=example-sign-in-key-long-enough-for-its-base64-to-take-two-lines\n",
            "keda.env", "host=loadflow-db.acme.internal\nport=5433\ndbName=loadflow\nuserName=loadflow_keda\npassword=example\nsslmode=verify-full\n",
            "llm.env", "LOADFLOW_POLICY_LLM_API_KEY=example-model-key\n",
            "idp-public-key.pem", "-----BEGIN PUBLIC KEY-----\nexample\n-----END PUBLIC KEY-----\n",
            "db-ca.crt", "-----BEGIN CERTIFICATE-----\nexample\n-----END CERTIFICATE-----\n");

    private static final Map<Path, Path> PREPARED = new java.util.concurrent.ConcurrentHashMap<>();

    private SiteOverlay() {
    }

    /**
     * The folder of overlay {@code name} under {@code k8s}; for {@code site}, a copy prepared
     * with the example files (once per run, under the module's target folder).
     */
    public static Path overlay(Path k8s, String name) {
        if (!name.equals("site")) {
            return k8s.resolve("overlays").resolve(name);
        }
        return PREPARED.computeIfAbsent(k8s.toAbsolutePath().normalize(), root -> {
            try {
                return prepared(root, Path.of("target", "site-overlay").toAbsolutePath());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** {@code k8s} copied to {@code into} with the example files; answers the copy's site overlay. */
    public static Path prepared(Path k8s, Path into) throws IOException {
        return prepared(k8s, into, Map.of());
    }

    /** As {@link #prepared(Path, Path)}, each file of {@code files} written instead of its example. */
    public static Path prepared(Path k8s, Path into, Map<String, String> files) throws IOException {
        if (Files.exists(into)) {
            try (Stream<Path> old = Files.walk(into)) {
                old.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
        try (Stream<Path> tree = Files.walk(k8s)) {
            tree.forEach(source -> {
                try {
                    Path target = into.resolve(k8s.relativize(source).toString());
                    if (Files.isDirectory(source)) {
                        Files.createDirectories(target);
                    } else {
                        Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
        Path site = into.resolve("overlays").resolve("site");
        Map<String, String> all = new LinkedHashMap<>(EXAMPLES);
        all.putAll(files);
        for (Map.Entry<String, String> file : all.entrySet()) {
            Files.writeString(site.resolve("from-site").resolve(file.getKey()), file.getValue());
        }
        return site;
    }
}

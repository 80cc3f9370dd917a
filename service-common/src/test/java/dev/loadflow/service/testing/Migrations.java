package dev.loadflow.service.testing;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The Flyway migrations on the classpath, so tests need no edit when one is added. */
public final class Migrations {

    private static final Pattern MIGRATION = Pattern.compile("V(\\d+)__.*\\.sql");

    private Migrations() {
    }

    /** How many there are: what a database with none applied has pending. */
    public static int count() {
        return versions().size();
    }

    /** The newest version: what a migrated database reports. */
    public static String latest() {
        return String.valueOf(versions().stream().mapToInt(Integer::intValue).max().orElseThrow());
    }

    private static List<Integer> versions() {
        try {
            URI location = Migrations.class.getClassLoader().getResource("db/migration").toURI();
            if ("jar".equals(location.getScheme())) {
                try (FileSystem jar = FileSystems.newFileSystem(location, Map.of())) {
                    return versions(jar.getPath("db/migration"));
                }
            }
            return versions(Path.of(location));
        } catch (IOException | URISyntaxException e) {
            throw new IllegalStateException("cannot list the migrations on the classpath", e);
        }
    }

    private static List<Integer> versions(Path migrations) throws IOException {
        try (Stream<Path> files = Files.list(migrations)) {
            return files.map(f -> MIGRATION.matcher(f.getFileName().toString())).filter(Matcher::matches)
                    .map(m -> Integer.parseInt(m.group(1))).toList();
        }
    }
}

package dev.loadflow.store.pg;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The build's newest migration, as the schema gate knows it, is the newest file in db/migration. */
class MigrationsTest {

    private static final Pattern VERSIONED = Pattern.compile("V(\\d+)(?:_\\d+)*__.+\\.sql");

    @Test
    void theNewestMigrationIsTheOneTheGateIsBuiltFor() throws IOException {
        int newest;
        try (Stream<Path> files = Files.list(Path.of("src/main/resources/db/migration"))) {
            newest = files.map(file -> VERSIONED.matcher(file.getFileName().toString())).filter(Matcher::matches)
                    .mapToInt(m -> Integer.parseInt(m.group(1))).max().orElseThrow();
        }

        assertThat(Migrations.NEWEST).as("Migrations.NEWEST: raise it with each new migration").isEqualTo(newest);
    }
}

package dev.loadflow.service.retention;

import dev.loadflow.store.retention.PgRetention;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;

/**
 * Writes what retention deletes to {@code loadflow.retention.export-dir}, one JSON object per
 * line, appended to {@code <table>-<UTC date>-<instance>.ndjson} and forced to disk before the
 * delete commits. The instance in the name keeps two services on one shared volume from writing
 * into one file.
 */
public final class NdjsonExport implements PgRetention.Export {

    private final Path dir;
    private final String instance;
    private final Clock clock;

    public NdjsonExport(Path dir, String instance, Clock clock) {
        this.dir = dir;
        this.instance = instance.replaceAll("[^A-Za-z0-9._-]", "_");
        this.clock = clock;
    }

    /** The file {@code table}'s rows go to today. */
    public Path file(String table) {
        return dir.resolve(table + "-" + LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC) + "-" + instance + ".ndjson");
    }

    @Override
    public void write(String table, List<String> rows) throws IOException {
        Files.createDirectories(dir);
        StringBuilder lines = new StringBuilder();
        for (String row : rows) {
            lines.append(row).append('\n');
        }
        ByteBuffer bytes = ByteBuffer.wrap(lines.toString().getBytes(StandardCharsets.UTF_8));
        try (FileChannel file = FileChannel.open(file(table), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            while (bytes.hasRemaining()) {
                file.write(bytes);
            }
            file.force(true);
        }
    }
}

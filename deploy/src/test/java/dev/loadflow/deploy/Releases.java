package dev.loadflow.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Which release a checkout is, as {@code scripts/build-images} and {@code scripts/previous-release} read it. */
public final class Releases {

    private static final Pattern POM_VERSION = Pattern.compile("(?m)^  <version>(.+)</version>");
    private static final Pattern RELEASE_HEADING = Pattern.compile("(?m)^## (\\d+\\.\\d+\\.\\d+) — \\d{4}-\\d{2}-\\d{2}$");

    private Releases() {
    }

    /** The version the root pom.xml of the checkout at {@code root} names (its first top-level {@code <version>}). */
    public static String pomVersion(Path root) throws IOException {
        Matcher version = POM_VERSION.matcher(Files.readString(root.resolve("pom.xml")));
        if (!version.find()) {
            throw new IllegalStateException(root.resolve("pom.xml") + " names no version");
        }
        return version.group(1);
    }

    /** The newest release of the checkout at {@code root}: its CHANGELOG.md's first version heading. */
    public static String newestRelease(Path root) throws IOException {
        Matcher heading = RELEASE_HEADING.matcher(Files.readString(root.resolve("CHANGELOG.md")));
        if (!heading.find()) {
            throw new IllegalStateException(root.resolve("CHANGELOG.md") + " names no release");
        }
        return heading.group(1);
    }
}

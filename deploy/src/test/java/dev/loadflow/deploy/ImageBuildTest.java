package dev.loadflow.deploy;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The images are labelled with the version they are built from: {@code scripts/build-images} tags
 * each service's image with the root pom's version and passes it to the Dockerfile's label, so a
 * checkout between releases builds {@code <version>-SNAPSHOT-jvm}, never a release's tag.
 */
class ImageBuildTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final List<String> SERVICES = List.of("load-worker", "outbox-dispatcher", "timer-pump", "ops-console");

    private static String pomVersion() throws IOException {
        return Releases.pomVersion(ROOT);
    }

    private static List<String> dryRun(String... options) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("bash", "scripts/build-images", "--dry-run"));
        command.addAll(List.of(options));
        Process process = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return output.lines().toList();
    }

    @Test
    void everyImageIsTaggedAndLabelledWithThePomsVersion() throws Exception {
        String version = pomVersion();

        List<String> jvm = dryRun("--registry", "registry.invalid/loadflow");
        List<String> natives = dryRun("--native");

        assertThat(jvm).hasSize(SERVICES.size());
        for (int i = 0; i < SERVICES.size(); i++) {
            String service = SERVICES.get(i);
            assertThat(jvm.get(i)).contains("-f " + service + "/src/main/docker/Dockerfile.jvm", "--build-arg VERSION=" + version,
                    "-t registry.invalid/loadflow/" + service + ":" + version + "-jvm");
            assertThat(natives.get(i)).contains("-t loadflow/" + service + ":" + version + "-native");
            for (String kind : List.of("jvm", "native")) {
                String dockerfile = Files.readString(ROOT.resolve(service + "/src/main/docker/Dockerfile." + kind));
                String finalStage = dockerfile.substring(dockerfile.lastIndexOf("\nFROM "));
                assertThat(finalStage).as(service + " " + kind + ": the label is on the image that ships")
                        .contains("ARG VERSION").contains("org.opencontainers.image.version=\"${VERSION}\"");
            }
        }
        if (version.endsWith("-SNAPSHOT")) {
            assertThat(String.join("\n", jvm)).as("a SNAPSHOT never gets a release's tag")
                    .doesNotContain(":" + version.replace("-SNAPSHOT", "") + "-jvm");
        }
    }

    /**
     * A push ends with the images' block for a site overlay, each image by the digest the
     * registry stored it under: pasted into an overlay, every container runs exactly that image.
     */
    @Test
    void aPushEndsWithTheOverlaysImagesByDigest(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        List<String> output = dryRun("--registry", "registry.invalid/loadflow", "--push");
        String block = String.join("\n", output.subList(output.indexOf("images:"), output.size()));
        String digest = "sha256:" + "0123456789abcdef".repeat(4);
        Path overlay = Files.createDirectories(dir.resolve("overlay"));
        Files.writeString(overlay.resolve("kustomization.yaml"), "resources:\n  - " + ROOT.resolve("deploy/k8s/base") + "\n"
                + block.replace("sha256:<its digest>", digest) + "\n");

        List<String> images = Kustomize.render(overlay).stream()
                .flatMap(o -> o.path("spec").path("template").path("spec").path("containers").findValuesAsText("image").stream()).toList();
        assertThat(images).hasSize(5).allSatisfy(image -> assertThat(image).startsWith("registry.invalid/loadflow/").endsWith("@" + digest));
        assertThat(output).contains("docker push registry.invalid/loadflow/ops-console:" + pomVersion() + "-jvm");
    }
}

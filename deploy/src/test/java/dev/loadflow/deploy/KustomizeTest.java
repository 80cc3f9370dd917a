package dev.loadflow.deploy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The renderer's generators and patches on a small kustomization, with the names and order
 * {@code kubectl kustomize} (kustomize v5.5) gave for the same files: a hash that differs from
 * kustomize's would roll no pod on a cluster while every check here passed.
 */
class KustomizeTest {

    @TempDir
    Path dir;

    @Test
    void generatedNamesCarryKustomizesHashAndEveryReferenceFollows() throws IOException {
        Path base = Files.createDirectories(dir.resolve("base"));
        Files.writeString(base.resolve("kustomization.yaml"), """
                resources: [deployment.yaml]
                configMapGenerator:
                  - name: cfg
                    literals: [A=1, "URL=jdbc:x?a=b&c=<d>"]
                """);
        Files.writeString(base.resolve("deployment.yaml"), """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: d}
                spec:
                  template:
                    spec:
                      containers:
                        - name: c
                          image: img
                          envFrom:
                            - configMapRef: {name: cfg}
                            - secretRef: {name: sec}
                          env:
                            - {name: E1, value: a}
                            - {name: E2, value: b}
                """);
        Path overlay = Files.createDirectories(dir.resolve("overlay"));
        Files.writeString(overlay.resolve("kustomization.yaml"), """
                resources: [../base]
                configMapGenerator:
                  - name: cfg
                    behavior: merge
                    literals: [B=2]
                secretGenerator:
                  - name: sec
                    literals: [P=x]
                patches:
                  - path: add-c.yaml
                    target: {kind: ConfigMap, name: cfg}
                  - path: env.yaml
                """);
        Files.writeString(overlay.resolve("add-c.yaml"), """
                - op: add
                  path: /data/C
                  value: "3"
                """);
        Files.writeString(overlay.resolve("env.yaml"), """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: d}
                spec:
                  template:
                    spec:
                      containers:
                        - name: c
                          env:
                            - {name: E2, value: site}
                            - {name: E3, value: new}
                """);

        assertThat(Kustomize.render(base)).extracting(o -> o.path("metadata").path("name").asText()).contains("cfg-mftkc4c992");
        List<ObjectNode> rendered = Kustomize.render(overlay);
        assertThat(rendered).extracting(o -> o.path("kind").asText() + "/" + o.path("metadata").path("name").asText())
                .containsExactlyInAnyOrder("Deployment/d", "ConfigMap/cfg-dtb7h8g4hm", "Secret/sec-d292k9tbmg");
        ObjectNode container = (ObjectNode) Kustomize.named(rendered, "Deployment", "d").at("/spec/template/spec/containers/0");
        assertThat(container.at("/envFrom/0/configMapRef/name").asText()).isEqualTo("cfg-dtb7h8g4hm");
        assertThat(container.at("/envFrom/1/secretRef/name").asText()).isEqualTo("sec-d292k9tbmg");
        assertThat(container.path("env").findValuesAsText("name")).as("merged by name, the patch's first").containsExactly("E2", "E3", "E1");
        assertThat(container.path("env").findValuesAsText("value")).containsExactly("site", "new", "a");
        assertThat(Kustomize.named(rendered, "Secret", "sec").at("/data/P").asText()).isEqualTo("eA==");
    }

    @Test
    void onlyAHashsLettersAreTakenForAGeneratorsSuffix() {
        assertThat(Kustomize.unhashed("loadflow-config-6cb8ddfc49")).isEqualTo("loadflow-config");
        assertThat(Kustomize.unhashed("outbox-dispatcher")).as("a word of ten letters is not a hash").isEqualTo("outbox-dispatcher");
    }

    @Test
    void aFeatureItDoesNotRenderIsRefusedRatherThanIgnored() throws IOException {
        Files.writeString(dir.resolve("kustomization.yaml"), "resources: []\nnamePrefix: acme-\n");
        assertThatThrownBy(() -> Kustomize.render(dir)).hasMessageContaining("namePrefix");
    }
}

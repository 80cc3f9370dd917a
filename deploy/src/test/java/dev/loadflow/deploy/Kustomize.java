package dev.loadflow.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Renders a kustomization the way {@code kubectl kustomize} does, for the features these
 * manifests use: {@code resources} (files and folders), {@code components} (a
 * {@code kind: Component} folder: its resources join, then its own patches and images apply to
 * everything so far), {@code images} (new tag or name) and {@code patches} (JSON 6902 files with a
 * kind/name target). Anything else is refused, so a manifest change that needs more fails here
 * instead of rendering differently.
 */
final class Kustomize {

    static final YAMLMapper YAML = new YAMLMapper();

    private Kustomize() {
    }

    static List<ObjectNode> render(Path dir) throws IOException {
        List<ObjectNode> objects = new ArrayList<>();
        apply(dir, objects, false);
        return objects;
    }

    /** Adds what the kustomization (or component) in {@code dir} makes to {@code objects} and transforms them. */
    private static void apply(Path dir, List<ObjectNode> objects, boolean component) throws IOException {
        JsonNode kustomization = YAML.readTree(dir.resolve("kustomization.yaml").toFile());
        String kind = kustomization.path("kind").asText("Kustomization");
        if (!kind.equals(component ? "Component" : "Kustomization")) {
            throw new IllegalArgumentException(dir + ": a " + kind + " where a " + (component ? "Component" : "Kustomization") + " belongs");
        }
        kustomization.fieldNames().forEachRemaining(field -> {
            if (!List.of("apiVersion", "kind", "resources", "components", "images", "patches").contains(field)) {
                throw new IllegalArgumentException(dir + ": kustomization field '" + field + "' is not rendered here");
            }
        });
        for (JsonNode resource : kustomization.path("resources")) {
            Path path = dir.resolve(resource.asText()).normalize();
            objects.addAll(Files.isDirectory(path) ? render(path) : readAll(path));
        }
        for (JsonNode included : kustomization.path("components")) {
            apply(dir.resolve(included.asText()).normalize(), objects, true);
        }
        for (JsonNode image : kustomization.path("images")) {
            for (ObjectNode object : objects) {
                for (JsonNode container : object.path("spec").path("template").path("spec").path("containers")) {
                    String current = container.path("image").asText();
                    String name = current.contains(":") ? current.substring(0, current.indexOf(':')) : current;
                    if (name.equals(image.path("name").asText())) {
                        String newName = image.has("newName") ? image.get("newName").asText() : name;
                        ((ObjectNode) container).put("image", newName + (image.has("newTag") ? ":" + image.get("newTag").asText() : ""));
                    }
                }
            }
        }
        for (JsonNode patch : kustomization.path("patches")) {
            JsonNode ops = YAML.readTree(dir.resolve(patch.path("path").asText()).toFile());
            JsonNode target = patch.path("target");
            for (ObjectNode object : objects) {
                boolean kindMatches = !target.has("kind") || target.get("kind").asText().equals(object.path("kind").asText());
                boolean nameMatches = !target.has("name") || target.get("name").asText().equals(object.path("metadata").path("name").asText());
                if (kindMatches && nameMatches) {
                    for (JsonNode op : ops) {
                        patch(object, op);
                    }
                }
            }
        }
    }

    static List<ObjectNode> readAll(Path file) throws IOException {
        List<ObjectNode> documents = new ArrayList<>();
        try (var values = YAML.readerFor(JsonNode.class).<JsonNode>readValues(file.toFile())) {
            while (values.hasNext()) {
                JsonNode document = values.next();
                if (document != null && document.isObject() && !document.isEmpty()) {
                    documents.add((ObjectNode) document);
                }
            }
        }
        return documents;
    }

    private static void patch(ObjectNode object, JsonNode op) {
        String[] path = op.path("path").asText().substring(1).split("/");
        JsonNode parent = object;
        for (int i = 0; i < path.length - 1; i++) {
            parent = parent.isArray() ? parent.get(Integer.parseInt(path[i])) : parent.get(path[i]);
            if (parent == null) {
                throw new IllegalArgumentException("patch path " + op.path("path").asText() + " does not exist");
            }
        }
        String last = path[path.length - 1];
        switch (op.path("op").asText()) {
            case "replace", "add" -> {
                if (parent instanceof ArrayNode array) {
                    if (last.equals("-")) {
                        array.add(op.get("value"));
                    } else {
                        array.set(Integer.parseInt(last), op.get("value"));
                    }
                } else {
                    ((ObjectNode) parent).set(last, op.get("value"));
                }
            }
            case "remove" -> {
                if (parent instanceof ArrayNode array) {
                    array.remove(Integer.parseInt(last));
                } else {
                    ((ObjectNode) parent).remove(last);
                }
            }
            default -> throw new IllegalArgumentException("patch op " + op.path("op").asText() + " is not rendered here");
        }
    }
}

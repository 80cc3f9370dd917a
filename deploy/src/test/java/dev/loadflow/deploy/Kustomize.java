package dev.loadflow.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders a kustomization the way {@code kubectl kustomize} does, for the features these
 * manifests use: {@code resources} (files and folders), {@code components} (a
 * {@code kind: Component} folder: its resources join, then its own transformations apply to
 * everything so far), then, in kustomize's order, {@code patches} (JSON 6902 files with a
 * kind/name target), {@code namespace} (every object's), {@code images} (new tag or name) and {@code replacements}
 * (inline: a source object's field copied into targets' fields, {@code *} for every element of
 * a list, the whole value or one part of it split by a delimiter). Anything else is refused, so
 * a manifest change that needs more fails here instead of rendering differently.
 */
public final class Kustomize {

    static final YAMLMapper YAML = new YAMLMapper();

    private Kustomize() {
    }

    public static List<ObjectNode> render(Path dir) throws IOException {
        return render(dir, new IdentityHashMap<>());
    }

    /** @param formerNames each object's names before a patch renamed it: a patch's target matches them too, as in kustomize */
    private static List<ObjectNode> render(Path dir, Map<ObjectNode, List<String>> formerNames) throws IOException {
        List<ObjectNode> objects = new ArrayList<>();
        apply(dir, objects, false, formerNames);
        return objects;
    }

    /** Adds what the kustomization (or component) in {@code dir} makes to {@code objects} and transforms them. */
    private static void apply(Path dir, List<ObjectNode> objects, boolean component, Map<ObjectNode, List<String>> formerNames)
            throws IOException {
        JsonNode kustomization = YAML.readTree(dir.resolve("kustomization.yaml").toFile());
        String kind = kustomization.path("kind").asText("Kustomization");
        if (!kind.equals(component ? "Component" : "Kustomization")) {
            throw new IllegalArgumentException(dir + ": a " + kind + " where a " + (component ? "Component" : "Kustomization") + " belongs");
        }
        kustomization.fieldNames().forEachRemaining(field -> {
            if (!List.of("apiVersion", "kind", "resources", "components", "namespace", "images", "patches", "replacements").contains(field)) {
                throw new IllegalArgumentException(dir + ": kustomization field '" + field + "' is not rendered here");
            }
        });
        for (JsonNode resource : kustomization.path("resources")) {
            Path path = dir.resolve(resource.asText()).normalize();
            objects.addAll(Files.isDirectory(path) ? render(path, formerNames) : readAll(path));
        }
        for (JsonNode included : kustomization.path("components")) {
            apply(dir.resolve(included.asText()).normalize(), objects, true, formerNames);
        }
        for (JsonNode patch : kustomization.path("patches")) {
            JsonNode ops = YAML.readTree(dir.resolve(patch.path("path").asText()).toFile());
            JsonNode target = patch.path("target");
            for (ObjectNode object : objects) {
                boolean kindMatches = !target.has("kind") || target.get("kind").asText().equals(object.path("kind").asText());
                String name = object.path("metadata").path("name").asText();
                boolean nameMatches = !target.has("name") || target.get("name").asText().equals(name)
                        || formerNames.getOrDefault(object, List.of()).contains(target.get("name").asText());
                if (kindMatches && nameMatches) {
                    for (JsonNode op : ops) {
                        patch(object, op);
                    }
                    if (!object.path("metadata").path("name").asText().equals(name)) {
                        formerNames.computeIfAbsent(object, o -> new ArrayList<>()).add(name);
                    }
                }
            }
        }
        if (kustomization.has("namespace")) {
            objects.forEach(object -> ((ObjectNode) object.get("metadata")).put("namespace", kustomization.get("namespace").asText()));
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
        for (JsonNode replacement : kustomization.path("replacements")) {
            replace(replacement, objects, dir);
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

    /** Copies the source's field into each selected target's fields (all of it, or one part between delimiters). */
    private static void replace(JsonNode replacement, List<ObjectNode> objects, Path dir) {
        JsonNode source = replacement.path("source");
        List<JsonNode> values = objects.stream().filter(o -> selected(source, o))
                .flatMap(o -> at(o, source.path("fieldPath").asText()).stream()).toList();
        if (values.size() != 1 || !values.getFirst().isValueNode()) {
            throw new IllegalArgumentException(dir + ": replacement source " + source + " selects " + values.size() + " values, not one");
        }
        String value = values.getFirst().asText();
        for (JsonNode target : replacement.path("targets")) {
            JsonNode options = target.path("options");
            boolean any = false;
            for (ObjectNode object : objects) {
                if (!selected(target.path("select"), object)) {
                    continue;
                }
                for (JsonNode fieldPath : target.path("fieldPaths")) {
                    for (JsonNode found : parentsOf(object, fieldPath.asText())) {
                        String field = fieldPath.asText().substring(fieldPath.asText().lastIndexOf('.') + 1);
                        String replaced = value;
                        if (options.has("delimiter")) {
                            String delimiter = options.get("delimiter").asText();
                            List<String> parts = new ArrayList<>(List.of(found.path(field).asText().split(java.util.regex.Pattern.quote(delimiter), -1)));
                            parts.set(options.path("index").asInt(0), value);
                            replaced = String.join(delimiter, parts);
                        }
                        ((ObjectNode) found).put(field, replaced);
                        any = true;
                    }
                }
            }
            if (!any) {
                throw new IllegalArgumentException(dir + ": replacement target " + target + " selects no field");
            }
        }
    }

    private static boolean selected(JsonNode select, JsonNode object) {
        return (!select.has("kind") || select.get("kind").asText().equals(object.path("kind").asText()))
                && (!select.has("name") || select.get("name").asText().equals(object.path("metadata").path("name").asText()));
    }

    /** The nodes at a dotted field path ({@code *}: every element of a list or every field of a map). */
    private static List<JsonNode> at(JsonNode object, String fieldPath) {
        List<JsonNode> nodes = List.of(object);
        for (String step : fieldPath.split("\\.")) {
            List<JsonNode> next = new ArrayList<>();
            for (JsonNode node : nodes) {
                if (step.equals("*")) {
                    node.elements().forEachRemaining(next::add);
                } else if (node.isArray() && step.matches("\\d+")) {
                    if (node.has(Integer.parseInt(step))) {
                        next.add(node.get(Integer.parseInt(step)));
                    }
                } else if (node.has(step)) {
                    next.add(node.get(step));
                }
            }
            nodes = next;
        }
        return nodes;
    }

    /** The objects holding the last field of {@code fieldPath}, where it exists. */
    private static List<JsonNode> parentsOf(JsonNode object, String fieldPath) {
        int last = fieldPath.lastIndexOf('.');
        String field = fieldPath.substring(last + 1);
        return at(object, fieldPath.substring(0, last)).stream().filter(n -> n.isObject() && n.has(field)).toList();
    }

    private static void patch(ObjectNode object, JsonNode op) {
        String[] path = op.path("path").asText().substring(1).split("/");
        for (int i = 0; i < path.length; i++) {
            path[i] = path[i].replace("~1", "/").replace("~0", "~");
        }
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

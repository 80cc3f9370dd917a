package dev.loadflow.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Renders a kustomization the way {@code kubectl kustomize} (kustomize v5) does, for the features
 * these manifests use: {@code resources} (files and folders), {@code components} (a
 * {@code kind: Component} folder: its resources join, then its own generators and transformations
 * apply to everything so far), {@code configMapGenerator} and {@code secretGenerator} (literals,
 * env files and files; create, merge or replace; they run before the components), then, in
 * kustomize's order, {@code patches}
 * (JSON 6902 lists, or strategic merge patches that merge containers, env, volumes, volume mounts,
 * ports and pull secrets by their keys), {@code namespace}, {@code images} (new name, tag or
 * digest) and {@code replacements} (a source object's field copied into targets' fields, {@code *}
 * for every element of a list, the whole value or one part of it split by a delimiter). Last, at
 * the top only, each generated object's name gets the hash of its content and every reference to
 * it follows (the pod template's, an Ingress's TLS Secret, and the fields a {@code configurations}
 * file names). Anything else is refused, so a manifest change that needs more fails here instead
 * of rendering differently; ManifestsTest compares every overlay with {@code kubectl kustomize}
 * where kubectl is installed.
 */
public final class Kustomize {

    static final YAMLMapper YAML = new YAMLMapper();
    private static final ObjectMapper SORTED_JSON = new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
    private static final List<String> FIELDS = List.of("apiVersion", "kind", "resources", "components", "namespace", "images",
            "patches", "replacements", "configMapGenerator", "secretGenerator", "configurations");
    /** The lists a strategic merge patch merges element by element in a pod template, and each one's key. */
    private static final Map<String, String> MERGE_KEYS = Map.of("containers", "name", "initContainers", "name", "env", "name",
            "volumes", "name", "volumeMounts", "mountPath", "ports", "containerPort", "imagePullSecrets", "name");
    private static final Set<String> WORKLOADS = Set.of("Deployment", "Job", "StatefulSet", "DaemonSet");

    private Kustomize() {
    }

    /** What a build carries from one kustomization to the next until the top finishes it. */
    private static final class Build {
        /** each object's names before a patch renamed it: a patch's target matches them too, as in kustomize */
        final Map<ObjectNode, List<String>> formerNames = new IdentityHashMap<>();
        /** the objects a generator made: their names get a hash at the end */
        final Map<ObjectNode, Boolean> generated = new IdentityHashMap<>();
        /** fields naming a ConfigMap or Secret, beyond the built-in ones: kind of object, slash-separated path */
        final List<String[]> references = new ArrayList<>();
    }

    public static List<ObjectNode> render(Path dir) throws IOException {
        Build build = new Build();
        List<ObjectNode> objects = new ArrayList<>();
        apply(dir, objects, false, build);
        addHashes(objects, build);
        return objects;
    }

    /** The letters of a generated name's hash: hex digits, with g, h, k, m and t for 0, 1, 3, a and e. */
    private static final String HASH = "-[2456789bcdfghkmt]{10}";

    /** {@code name} without the hash a generator gave it. */
    public static String unhashed(String name) {
        return name.replaceFirst(HASH + "$", "");
    }

    /** The object of this kind whose name is {@code name}, or {@code name} with a generator's hash. */
    public static ObjectNode named(List<ObjectNode> objects, String kind, String name) {
        return objects.stream().filter(o -> o.path("kind").asText().equals(kind))
                .filter(o -> o.path("metadata").path("name").asText().matches(java.util.regex.Pattern.quote(name) + "(" + HASH + ")?"))
                .findFirst().orElseThrow(() -> new IllegalArgumentException("no " + kind + " " + name));
    }

    /** Adds what the kustomization (or component) in {@code dir} makes to {@code objects} and transforms them. */
    private static void apply(Path dir, List<ObjectNode> objects, boolean component, Build build) throws IOException {
        JsonNode kustomization = YAML.readTree(dir.resolve("kustomization.yaml").toFile());
        String kind = kustomization.path("kind").asText("Kustomization");
        if (!kind.equals(component ? "Component" : "Kustomization")) {
            throw new IllegalArgumentException(dir + ": a " + kind + " where a " + (component ? "Component" : "Kustomization") + " belongs");
        }
        kustomization.fieldNames().forEachRemaining(field -> {
            if (!FIELDS.contains(field)) {
                throw new IllegalArgumentException(dir + ": kustomization field '" + field + "' is not rendered here");
            }
        });
        for (JsonNode resource : kustomization.path("resources")) {
            Path path = dir.resolve(resource.asText()).normalize();
            if (Files.isDirectory(path)) {
                apply(path, objects, false, build);
            } else {
                objects.addAll(readAll(path));
            }
        }
        for (JsonNode configuration : kustomization.path("configurations")) {
            configure(dir.resolve(configuration.asText()), build);
        }
        for (JsonNode generator : kustomization.path("configMapGenerator")) {
            generate(dir, "ConfigMap", generator, objects, build);
        }
        for (JsonNode generator : kustomization.path("secretGenerator")) {
            generate(dir, "Secret", generator, objects, build);
        }
        // kustomize applies the components after the kustomization's own generators, before its patches
        for (JsonNode included : kustomization.path("components")) {
            apply(dir.resolve(included.asText()).normalize(), objects, true, build);
        }
        for (JsonNode patch : kustomization.path("patches")) {
            Path file = dir.resolve(patch.path("path").asText());
            JsonNode first = YAML.readTree(file.toFile());
            List<? extends JsonNode> bodies = first.isArray() ? List.of(first) : readAll(file);
            for (JsonNode body : bodies) {
                JsonNode target = patch.has("target") ? patch.get("target") : targetOf(body, dir);
                boolean any = false;
                for (ObjectNode object : objects) {
                    String name = object.path("metadata").path("name").asText();
                    if (matches(target, object, build)) {
                        any = true;
                        if (body.isArray()) {
                            for (JsonNode op : body) {
                                patch(object, op);
                            }
                        } else {
                            // the patch's own kind and name only choose its target when it names none
                            ObjectNode strategic = body.deepCopy();
                            strategic.remove(List.of("apiVersion", "kind"));
                            ((ObjectNode) strategic.path("metadata")).remove("name");
                            merge(object, strategic, "");
                        }
                        if (!object.path("metadata").path("name").asText().equals(name)) {
                            build.formerNames.computeIfAbsent(object, o -> new ArrayList<>()).add(name);
                        }
                    }
                }
                if (!any && !body.isArray()) {
                    throw new IllegalArgumentException(file + ": a patch that matches no object (" + target + ")");
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
                    int cut = current.contains("@") ? current.indexOf('@') : current.lastIndexOf(':') > current.lastIndexOf('/') ? current.lastIndexOf(':') : -1;
                    String name = cut < 0 ? current : current.substring(0, cut);
                    if (name.equals(image.path("name").asText())) {
                        String newName = image.has("newName") ? image.get("newName").asText() : name;
                        String reference = image.has("digest") ? "@" + image.get("digest").asText()
                                : image.has("newTag") ? ":" + image.get("newTag").asText() : cut < 0 ? "" : current.substring(cut);
                        ((ObjectNode) container).put("image", newName + reference);
                    }
                }
            }
        }
        for (JsonNode replacement : kustomization.path("replacements")) {
            replace(replacement, objects, dir);
        }
    }

    private static JsonNode targetOf(JsonNode strategic, Path dir) {
        if (strategic.isArray()) {
            throw new IllegalArgumentException(dir + ": a JSON 6902 patch needs a target");
        }
        return JsonNodeFactory.instance.objectNode().put("kind", strategic.path("kind").asText())
                .put("name", strategic.path("metadata").path("name").asText());
    }

    private static boolean matches(JsonNode target, ObjectNode object, Build build) {
        boolean kindMatches = !target.has("kind") || target.get("kind").asText().equals(object.path("kind").asText());
        boolean nameMatches = !target.has("name") || target.get("name").asText().equals(object.path("metadata").path("name").asText())
                || build.formerNames.getOrDefault(object, List.of()).contains(target.get("name").asText());
        return kindMatches && nameMatches;
    }

    /** A {@code configurations} file: the nameReference entries (further fields naming a ConfigMap or Secret). */
    private static void configure(Path file, Build build) throws IOException {
        JsonNode configuration = YAML.readTree(file.toFile());
        configuration.fieldNames().forEachRemaining(field -> {
            if (!field.equals("nameReference")) {
                throw new IllegalArgumentException(file + ": configuration '" + field + "' is not rendered here");
            }
        });
        for (JsonNode reference : configuration.path("nameReference")) {
            for (JsonNode spec : reference.path("fieldSpecs")) {
                build.references.add(new String[] {reference.path("kind").asText(), spec.path("kind").asText(), spec.path("path").asText()});
            }
        }
    }

    /** A ConfigMap or Secret from literals, env files and files: a new one, or merged into (or replacing) one made before. */
    private static void generate(Path dir, String kind, JsonNode generator, List<ObjectNode> objects, Build build) throws IOException {
        generator.fieldNames().forEachRemaining(field -> {
            if (!List.of("name", "behavior", "literals", "envs", "files", "options", "type").contains(field)) {
                throw new IllegalArgumentException(dir + ": generator field '" + field + "' is not rendered here");
            }
        });
        Map<String, String> data = new TreeMap<>();
        for (JsonNode literal : generator.path("literals")) {
            String[] pair = literal.asText().split("=", 2);
            data.put(pair[0], pair[1]);
        }
        for (JsonNode env : generator.path("envs")) {
            for (String line : Files.readAllLines(dir.resolve(env.asText()))) {
                if (line.isBlank() || line.stripLeading().startsWith("#")) {
                    continue;
                }
                if (!line.contains("=")) {
                    throw new IllegalArgumentException(dir.resolve(env.asText()) + ": '" + line + "' is not KEY=value");
                }
                String[] pair = line.split("=", 2);
                data.put(pair[0].strip(), pair[1]);
            }
        }
        for (JsonNode file : generator.path("files")) {
            String[] pair = file.asText().contains("=") ? file.asText().split("=", 2)
                    : new String[] {Path.of(file.asText()).getFileName().toString(), file.asText()};
            data.put(pair[0], Files.readString(dir.resolve(pair[1])));
        }
        String name = generator.path("name").asText();
        String behavior = generator.path("behavior").asText("create");
        JsonNode labels = generator.path("options").path("labels");
        if (behavior.equals("create")) {
            ObjectNode object = JsonNodeFactory.instance.objectNode();
            object.put("apiVersion", "v1").put("kind", kind);
            ObjectNode metadata = object.putObject("metadata").put("name", name);
            if (labels.isObject()) {
                metadata.set("labels", labels.deepCopy());
            }
            ObjectNode values = object.putObject("data");
            data.forEach((key, value) -> values.put(key, encoded(kind, value)));
            if (kind.equals("Secret")) {
                object.put("type", generator.path("type").asText("Opaque"));
            }
            objects.add(object);
            build.generated.put(object, true);
            return;
        }
        ObjectNode existing = objects.stream().filter(o -> build.generated.containsKey(o) && o.path("kind").asText().equals(kind)
                && o.path("metadata").path("name").asText().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(dir + ": no generated " + kind + " " + name + " to " + behavior));
        if (behavior.equals("replace")) {
            existing.putObject("data");
        } else if (!behavior.equals("merge")) {
            throw new IllegalArgumentException(dir + ": generator behavior '" + behavior + "' is not rendered here");
        }
        data.forEach((key, value) -> ((ObjectNode) existing.get("data")).put(key, encoded(kind, value)));
        if (labels.isObject()) {
            ((ObjectNode) existing.get("metadata")).withObject("labels").setAll((ObjectNode) labels.deepCopy());
        }
    }

    /** A Secret's value in base64 as kustomize writes it: from 70 characters on, in lines of 70, each ended by a newline. */
    private static String encoded(String kind, String value) {
        if (!kind.equals("Secret")) {
            return value;
        }
        String base64 = Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
        if (base64.length() < 70) {
            return base64;
        }
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < base64.length(); i += 70) {
            lines.append(base64, i, Math.min(i + 70, base64.length())).append('\n');
        }
        return lines.toString();
    }

    /**
     * Each generated object's name gets the hash of its content, computed as kustomize v5 computes
     * it (its encoding carries an empty name), and every reference to it follows.
     */
    private static void addHashes(List<ObjectNode> objects, Build build) throws IOException {
        Map<String, String> renamed = new TreeMap<>();
        for (ObjectNode object : objects) {
            if (!build.generated.containsKey(object)) {
                continue;
            }
            String kind = object.path("kind").asText();
            ObjectNode encoded = JsonNodeFactory.instance.objectNode();
            encoded.put("kind", kind).put("name", "").set("data", object.path("data"));
            if (kind.equals("Secret")) {
                encoded.put("type", object.path("type").asText());
            }
            String name = object.path("metadata").path("name").asText();
            String hashed = name + "-" + hash(SORTED_JSON.writeValueAsString(SORTED_JSON.treeToValue(encoded, Object.class)));
            ((ObjectNode) object.get("metadata")).put("name", hashed);
            renamed.put(kind + "/" + name, hashed);
        }
        for (ObjectNode object : objects) {
            JsonNode pod = object.path("spec").path("template").path("spec");
            if (WORKLOADS.contains(object.path("kind").asText()) && pod.isObject()) {
                for (String containers : List.of("containers", "initContainers")) {
                    for (JsonNode container : pod.path(containers)) {
                        for (JsonNode from : container.path("envFrom")) {
                            rename(from.path("configMapRef"), "name", "ConfigMap", renamed);
                            rename(from.path("secretRef"), "name", "Secret", renamed);
                        }
                        for (JsonNode env : container.path("env")) {
                            rename(env.path("valueFrom").path("configMapKeyRef"), "name", "ConfigMap", renamed);
                            rename(env.path("valueFrom").path("secretKeyRef"), "name", "Secret", renamed);
                        }
                    }
                }
                for (JsonNode volume : pod.path("volumes")) {
                    rename(volume.path("configMap"), "name", "ConfigMap", renamed);
                    rename(volume.path("secret"), "secretName", "Secret", renamed);
                    for (JsonNode source : volume.path("projected").path("sources")) {
                        rename(source.path("configMap"), "name", "ConfigMap", renamed);
                        rename(source.path("secret"), "name", "Secret", renamed);
                    }
                }
                for (JsonNode pull : pod.path("imagePullSecrets")) {
                    rename(pull, "name", "Secret", renamed);
                }
            }
            if (object.path("kind").asText().equals("Ingress")) {
                for (JsonNode tls : object.path("spec").path("tls")) {
                    rename(tls, "secretName", "Secret", renamed);
                }
            }
            for (String[] reference : build.references) {
                if (reference[1].equals(object.path("kind").asText())) {
                    String path = reference[2].replace('/', '.');
                    int last = path.lastIndexOf('.');
                    for (JsonNode parent : at(object, path.substring(0, last))) {
                        // a path steps through lists: each element is looked at
                        for (JsonNode holder : parent.isArray() ? parent : List.of(parent)) {
                            rename(holder, path.substring(last + 1), reference[0], renamed);
                        }
                    }
                }
            }
        }
    }

    private static void rename(JsonNode holder, String field, String kind, Map<String, String> renamed) {
        if (holder.isObject() && holder.has(field) && renamed.containsKey(kind + "/" + holder.get(field).asText())) {
            ((ObjectNode) holder).put(field, renamed.get(kind + "/" + holder.get(field).asText()));
        }
    }

    /** The first ten hex digits of the SHA-256, with kustomize's letters for 0, 1, 3, a and e. */
    private static String hash(String json) {
        // Go's encoding/json escapes these three inside strings; kustomize hashes its output
        String go = json.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e");
        try {
            String hex = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(go.getBytes(StandardCharsets.UTF_8)));
            StringBuilder encoded = new StringBuilder();
            for (char c : hex.substring(0, 10).toCharArray()) {
                encoded.append(switch (c) {
                    case '0' -> 'g';
                    case '1' -> 'h';
                    case '3' -> 'k';
                    case 'a' -> 'm';
                    case 'e' -> 't';
                    default -> c;
                });
            }
            return encoded.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A strategic merge patch: maps merge, {@code null} removes a field, the pod template's keyed
     * lists merge element by element (the patch's elements first, then the others, as kustomize
     * orders them) and every other list is replaced.
     */
    private static void merge(ObjectNode target, ObjectNode patch, String path) {
        for (Iterator<Map.Entry<String, JsonNode>> fields = patch.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            String key = field.getKey();
            JsonNode value = field.getValue();
            if (key.startsWith("$")) {
                throw new IllegalArgumentException("patch directive " + key + " at " + path + " is not rendered here");
            }
            JsonNode current = target.get(key);
            if (value.isNull()) {
                target.remove(key);
            } else if (value.isObject() && current != null && current.isObject()) {
                merge((ObjectNode) current, (ObjectNode) value, path + "/" + key);
            } else if (value.isArray() && current != null && current.isArray() && MERGE_KEYS.containsKey(key)
                    && path.startsWith("/spec/template/spec")) {
                target.set(key, mergeList((ArrayNode) current, (ArrayNode) value, MERGE_KEYS.get(key), path + "/" + key));
            } else {
                target.set(key, value.deepCopy());
            }
        }
    }

    private static ArrayNode mergeList(ArrayNode current, ArrayNode patch, String key, String path) {
        ArrayNode merged = JsonNodeFactory.instance.arrayNode();
        List<JsonNode> rest = new ArrayList<>();
        current.forEach(rest::add);
        for (JsonNode element : patch) {
            JsonNode match = rest.stream().filter(e -> e.path(key).equals(element.path(key))).findFirst().orElse(null);
            if (match == null) {
                merged.add(element.deepCopy());
            } else {
                rest.remove(match);
                ObjectNode copy = match.deepCopy();
                merge(copy, (ObjectNode) element, path);
                merged.add(copy);
            }
        }
        rest.forEach(merged::add);
        return merged;
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
                    String path = fieldPath.asText();
                    if (path.endsWith(".*")) {
                        for (JsonNode list : at(object, path.substring(0, path.length() - 2))) {
                            if (list instanceof ArrayNode array) {
                                for (int i = 0; i < array.size(); i++) {
                                    array.set(i, JsonNodeFactory.instance.textNode(replaced(options, array.get(i).asText(), value)));
                                    any = true;
                                }
                            }
                        }
                        continue;
                    }
                    for (JsonNode found : parentsOf(object, path)) {
                        String field = path.substring(path.lastIndexOf('.') + 1);
                        ((ObjectNode) found).put(field, replaced(options, found.path(field).asText(), value));
                        any = true;
                    }
                }
            }
            if (!any) {
                throw new IllegalArgumentException(dir + ": replacement target " + target + " selects no field");
            }
        }
    }

    /** The target's new value: the source's, or the target's with one delimited part replaced by it. */
    private static String replaced(JsonNode options, String current, String value) {
        if (!options.has("delimiter")) {
            return value;
        }
        String delimiter = options.get("delimiter").asText();
        List<String> parts = new ArrayList<>(List.of(current.split(java.util.regex.Pattern.quote(delimiter), -1)));
        parts.set(options.path("index").asInt(0), value);
        return String.join(delimiter, parts);
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

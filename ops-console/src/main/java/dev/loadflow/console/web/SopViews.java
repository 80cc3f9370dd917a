package dev.loadflow.console.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import dev.loadflow.console.story.LoadStory;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.model.json.SopRulesCodec;
import dev.loadflow.model.policy.SopRules;
import dev.loadflow.service.admin.SopAnswers;
import dev.loadflow.store.sop.SopVersion;
import io.quarkus.runtime.annotations.RegisterForReflection;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/** What the SOP pages show: the clients' versions, a version's rules, and what changed from the one before. */
// the rules are written as the admin API's JSON (json below)
@RegisterForReflection(targets = {SopRulesCodec.Json.class, SopRulesCodec.Hours.class, SopRulesCodec.AttemptJson.class})
public final class SopViews {

    /** The draft a client without a stored SOP starts from: one attempt, any hour. */
    static final String EXAMPLE = """
            {
              "clientName" : null,
              "timeZone" : "UTC",
              "askOn" : [ "high" ],
              "attempts" : [ {
                "wait" : "PT30M",
                "text" : "Dispatch here about load {loadId}: what is your ETA? (attempt {attempt})",
                "urgent" : false
              } ],
              "heroSlackChannel" : "#hero-desk"
            }""";

    private SopViews() {
    }

    /** A client on the list: its current version and its last change. */
    public record Client(String clientId, int version, String madeBy, LoadStory.When madeAt, String reason) {
        static Client of(SopVersion v, Instant now) {
            return new Client(v.clientId(), v.version(), v.madeBy(), Views.ago(v.madeAt(), now), v.reason());
        }
    }

    /** One version: who made it, when and why, its rules as JSON, and its diff from the version before (none for the first). */
    public record Version(int version, String madeBy, LoadStory.When madeAt, String reason, String rules, List<DiffLine> diff) {
    }

    /** A line of a unified diff: {@code kind} is {@code add}, {@code remove}, {@code hunk} or {@code same}. */
    public record DiffLine(String kind, String text) {
    }

    /** A preview as the page shows it: each attempt's text, and each event's decision beside what the draft would decide. */
    public record Preview(String loadId, List<SopAnswers.Text> texts, List<PreviewLine> history) {
        static Preview of(SopAnswers.Preview answer, UnaryOperator<String> mask) {
            List<PreviewLine> lines = answer.history().stream().map(l -> new PreviewLine(l.eventId(), l.type(), l.differs(),
                    l.decided() == null ? null : mask.apply(l.decided().reason()), l.decided() == null ? null : l.decided().sop(),
                    mask.apply(l.proposed().reason()),
                    l.proposed().actions().stream().map(a -> a.path("type").asText()).toList())).toList();
            return new Preview(answer.loadId(), answer.texts(), lines);
        }
    }

    /** One event of a preview: what was decided (and under which version), what the draft would decide, and its actions. */
    public record PreviewLine(String eventId, String type, boolean differs, String decided, String decidedSop, String proposed,
                              List<String> proposedActions) {
    }

    /** The client's versions, newest first, each with its diff from the one before. */
    static List<Version> versions(List<SopVersion> newestFirst, Instant now) {
        List<Version> versions = new ArrayList<>();
        for (int i = 0; i < newestFirst.size(); i++) {
            SopVersion v = newestFirst.get(i);
            String rules = json(v.rules());
            List<DiffLine> diff = i + 1 < newestFirst.size() ? diff(newestFirst.get(i + 1), v) : List.of();
            versions.add(new Version(v.version(), v.madeBy(), Views.ago(v.madeAt(), now), v.reason(), rules, diff));
        }
        return versions;
    }

    /** What changed from {@code before} to {@code after}, as a unified diff of their rules' JSON. */
    static List<DiffLine> diff(SopVersion before, SopVersion after) {
        List<String> from = json(before.rules()).lines().toList();
        List<String> to = json(after.rules()).lines().toList();
        List<String> unified = UnifiedDiffUtils.generateUnifiedDiff("version " + before.version(), "version " + after.version(),
                from, DiffUtils.diff(from, to), 2);
        List<DiffLine> lines = new ArrayList<>();
        for (String line : unified.subList(Math.min(2, unified.size()), unified.size())) {
            String kind = line.startsWith("+") ? "add" : line.startsWith("-") ? "remove" : line.startsWith("@@") ? "hunk" : "same";
            lines.add(new DiffLine(kind, line));
        }
        return lines;
    }

    /** The rules as an operator edits them: the admin API's JSON, indented. */
    static String json(SopRules rules) {
        try {
            return JsonReader.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(SopRulesCodec.json(rules));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.loadflow.model.event;

import java.util.Objects;

/**
 * Who took a decision, and what it cost when a model did: {@code decidedBy} is {@link #SOP}
 * (the deterministic SOP), {@link #LLM} (the model's answer, checked by the guard rails) or
 * {@link #SOP_FALLBACK} (the model was asked but its answer was refused twice, or it failed or
 * was too slow: the SOP decided, and {@code note} says why). For model decisions: the model,
 * a hash of the prompt template, the tokens in and out over every call for this decision, and
 * the time the calls took.
 */
public record Provenance(String decidedBy, String model, String promptHash, long tokensIn, long tokensOut,
                         long latencyMillis, String note) {

    public static final String SOP = "sop";
    public static final String LLM = "llm";
    public static final String SOP_FALLBACK = "sop-fallback";

    /** A decision of the deterministic SOP (or of another fixed rule); no model was asked. */
    public static final Provenance BY_SOP = new Provenance(SOP, null, null, 0, 0, 0, null);

    public Provenance {
        Objects.requireNonNull(decidedBy, "decidedBy");
        if (!decidedBy.equals(SOP) && !decidedBy.equals(LLM) && !decidedBy.equals(SOP_FALLBACK)) {
            throw new IllegalArgumentException("decidedBy is sop, llm or sop-fallback, got '" + decidedBy + "'");
        }
        if (!decidedBy.equals(SOP) && (model == null || promptHash == null)) {
            throw new IllegalArgumentException("a decision the model was asked for names the model and the prompt's hash");
        }
    }

    public static Provenance llm(String model, String promptHash, long tokensIn, long tokensOut, long latencyMillis) {
        return new Provenance(LLM, model, promptHash, tokensIn, tokensOut, latencyMillis, null);
    }

    public static Provenance fallback(String model, String promptHash, long tokensIn, long tokensOut, long latencyMillis,
                                      String why) {
        return new Provenance(SOP_FALLBACK, model, promptHash, tokensIn, tokensOut, latencyMillis, why);
    }

    /** Whether a model was called for this decision (its calls are wasted if the decision is not logged). */
    public boolean askedModel() {
        return model != null;
    }
}

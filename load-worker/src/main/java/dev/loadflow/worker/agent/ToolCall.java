package dev.loadflow.worker.agent;

/** One tool call of a model's answer: the tool's name (an action type) and its arguments as JSON text. */
public record ToolCall(String name, String arguments) {
}

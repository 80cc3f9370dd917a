package dev.loadflow.worker.agent;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.loadflow.model.action.ActionType;

import java.util.List;

/**
 * The tools the model decides with: one per action type it may take, named as the action type,
 * with a JSON schema of its arguments. ({@code stage_changed} is not one: it follows an
 * {@code update_stage} to the client's webhooks by rule.)
 */
public final class AgentTools {

    /** The action types the model may call, in the order the tools are offered. */
    public static final List<ActionType> TOOLS = List.of(ActionType.SEND_SMS, ActionType.SET_TIMER, ActionType.CANCEL_TIMER,
            ActionType.CREATE_HERO_TASK, ActionType.POST_HERO_SLACK, ActionType.UPDATE_STAGE);

    private AgentTools() {
    }

    public static List<ToolSpecification> specifications() {
        return List.of(
                tool(ActionType.SEND_SMS, "Text the load's driver, to ask for an ETA. Always with set_timer, the wait for the answer.",
                        JsonObjectSchema.builder()
                                .addStringProperty("to", "the driver's phone number, E.164, as in the load's state")
                                .addStringProperty("text", "the message")
                                .required("to", "text").build()),
                tool(ActionType.SET_TIMER, "Wait for the driver's answer: a timer that wakes this load if no answer came.",
                        JsonObjectSchema.builder()
                                .addIntegerProperty("after_seconds", "how long to wait, in seconds (the client's retry-after)")
                                .required("after_seconds").build()),
                tool(ActionType.CANCEL_TIMER, "Stop waiting: cancel the timer of an open ask the driver has answered.",
                        JsonObjectSchema.builder()
                                .addStringProperty("ask_id", "the open ask, e.g. ask:eta_request:ping_0700")
                                .required("ask_id").build()),
                tool(ActionType.CREATE_HERO_TASK, "Hand the load to a human (a Hero): the driver does not answer, an SMS failed, "
                                + "there is no driver to ask, or an event the rules do not cover needs a person to look.",
                        JsonObjectSchema.builder()
                                .addStringProperty("title", "one line")
                                .addStringProperty("body", "what happened and what the Hero should do")
                                .addEnumProperty("urgency", List.of("urgent", "normal"))
                                .required("title", "body", "urgency").build()),
                tool(ActionType.POST_HERO_SLACK, "Tell the Hero desk in Slack what the driver answered to an open ask.",
                        JsonObjectSchema.builder()
                                .addStringProperty("ask_id", "the open ask the answer is for")
                                .addStringProperty("text", "the post")
                                .required("ask_id", "text").build()),
                tool(ActionType.UPDATE_STAGE, "Move the load to the stage a new assignment gives it.",
                        JsonObjectSchema.builder()
                                .addStringProperty("stage", "the assignment's stage")
                                .required("stage").build()));
    }

    private static ToolSpecification tool(ActionType type, String description, JsonObjectSchema parameters) {
        return ToolSpecification.builder().name(type.wire()).description(description).parameters(parameters).build();
    }
}

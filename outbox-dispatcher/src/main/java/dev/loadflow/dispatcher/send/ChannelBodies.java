package dev.loadflow.dispatcher.send;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** The request bodies of the channel protocol (the dispatcher's README) for each channel, serialised by Jackson. */
public final class ChannelBodies {

    private ChannelBodies() {
    }

    /** SMS: {@code POST {sms.url}/messages}. */
    @RegisterForReflection
    public record Sms(String to, String text) {
    }

    /** Hero tasks: {@code POST {hero.url}/tasks}. */
    @RegisterForReflection
    public record HeroTask(String loadId, String title, String urgency, String body) {
    }

    /**
     * Hero Slack: {@code POST {slack.url}}. The text is escaped as Slack's message formatting asks
     * ({@code &}, {@code <}, {@code >}): a driver's words quoted in it are shown as written, never
     * read as a mention ({@code <!channel>}) or a link ({@code <https://…|…>}).
     */
    @RegisterForReflection
    public record SlackPost(String channel, String text) {

        public static SlackPost of(String channel, String text) {
            return new SlackPost(channel, escaped(text));
        }

        /** {@code text} with Slack's three control characters escaped. */
        public static String escaped(String text) {
            return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        }
    }

    /** A Slack channel's own incoming webhook: {@code POST {webhook}}; it posts where it was made for. */
    @RegisterForReflection
    public record SlackWebhookPost(String text) {
    }

    /** A client's stage webhook: {@code POST {url}}; {@code at} is ISO-8601. */
    @RegisterForReflection
    public record StageChange(String loadId, String stage, String at) {
    }
}

package dev.loadflow.dispatcher.send;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Channel;
import dev.loadflow.store.outbox.OutboxRow;

/** Hero tasks: {@code POST {hero.url}/tasks {"loadId", "title", "urgency", "body"}}. */
final class HeroTaskSender implements ChannelSender<Action.CreateHeroTask> {

    private final ChannelClients.Endpoint endpoint;

    HeroTaskSender(ChannelClients.Endpoint endpoint) {
        this.endpoint = endpoint;
    }

    @Override
    public Channel channel() {
        return Channel.HERO;
    }

    @Override
    public Class<Action.CreateHeroTask> actionType() {
        return Action.CreateHeroTask.class;
    }

    @Override
    public SendResult send(OutboxRow row, Action.CreateHeroTask task, ChannelClients http) {
        return http.send(endpoint, row.outboxId(), new ChannelBodies.HeroTask(row.loadId(), task.title(), task.urgency().wire(),
                task.body()));
    }

    @Override
    public boolean dedupes() {
        return endpoint.dedupes();
    }
}

package dev.loadflow.dispatcher;

import dev.loadflow.dispatcher.claim.DispatchLoop;
import dev.loadflow.dispatcher.claim.RowDispatcher;
import dev.loadflow.dispatcher.deliver.Delivery;
import dev.loadflow.dispatcher.fanout.StageWebhooks;
import dev.loadflow.dispatcher.finish.Finisher;
import dev.loadflow.dispatcher.finish.RetryPolicy;
import dev.loadflow.dispatcher.internal.InternalActions;
import dev.loadflow.dispatcher.protect.ChannelGuards;
import dev.loadflow.dispatcher.protect.CircuitRecorder;
import dev.loadflow.dispatcher.provider.TwilioSms;
import dev.loadflow.dispatcher.send.ChannelClients;
import dev.loadflow.dispatcher.send.ChannelSender;
import dev.loadflow.dispatcher.send.ChannelsConfig;
import dev.loadflow.dispatcher.send.JdkHttpTransport;
import dev.loadflow.dispatcher.send.PerClientKeys;
import dev.loadflow.dispatcher.send.RestClientTransport;
import dev.loadflow.dispatcher.send.VertxHttpTransport;
import dev.loadflow.model.action.Channel;
import dev.loadflow.service.loop.LoopConfig;
import dev.loadflow.service.store.DatabaseAnswers;
import dev.loadflow.service.trace.Traces;
import dev.loadflow.store.PgStores;
import dev.loadflow.store.alert.OpsAlerts;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.PgChannelCircuits;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.processed.PgProcessedEvents;
import dev.loadflow.store.processed.ProcessedEvents;
import dev.loadflow.store.provider.PgProviderMessages;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.stage.PgLoadStages;
import dev.loadflow.store.timer.TimerStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import dev.loadflow.service.retention.RetentionConfig;
import dev.loadflow.service.retention.RetentionHorizons;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/** Wires the plain-Java dispatcher to the Quarkus pool, config and registry. */
@ApplicationScoped
public class DispatcherProducers {

    @Produces
    @Singleton
    Outbox outbox(PgStores stores, DispatcherConfig config) {
        return stores.outbox(config.lease());
    }

    @Produces
    @Singleton
    TimerStore timers(PgStores stores,
                      @ConfigProperty(name = "loadflow.pump.max-sleep", defaultValue = "PT30S") Duration pumpMaxSleep) {
        // the dispatcher only schedules and cancels; the claim lease matters to the pump. The pumps
        // look at least every max-sleep (the same key as theirs), so only a timer due sooner needs a NOTIFY.
        return stores.timers(Duration.ofSeconds(30), pumpMaxSleep);
    }

    @Produces
    @Singleton
    OpsAlerts alerts(PgStores stores) {
        return stores.opsAlerts();
    }

    @Produces
    @Singleton
    ProcessedEvents processedEvents(Pool pool) {
        return new PgProcessedEvents(pool);
    }

    @Produces
    @Singleton
    DispatcherMetrics metrics(MeterRegistry registry) {
        return new DispatcherMetrics(registry);
    }

    @Produces
    @Singleton
    ChannelClients channelClients(ChannelsConfig config, Clock clock, Vertx vertx, Instance<ChannelSender<?>> senders,
                                  Outbox outbox, Pool pool) {
        return new ChannelClients(config, switch (config.transport()) {
            // a host's pool holds every channel's requests in flight at once: channels may share a host (an adapter
            // behind one URL, the local run's simulator), and a pool of the largest channel's size alone capped them
            // together at it (about 850 sends/s with a channel of 300 ms); each channel's own limit keeps its share
            case "vertx" -> new VertxHttpTransport(vertx, IntStream.concat(IntStream.of(config.sms().maxConcurrency(),
                    config.hero().maxConcurrency(), config.slack().maxConcurrency(), config.stageWebhooks().maxConcurrency()),
                    senders.stream().mapToInt(sender -> sender.pace().maxConcurrency())).sum());
            case "rest-client" -> {
                if (Stream.of(config.sms(), config.hero(), config.slack()).anyMatch(c -> "header".equals(c.auth()))) {
                    throw new IllegalStateException("loadflow.channels.<c>.auth=header needs loadflow.channels.transport vertx or jdk");
                }
                yield new RestClientTransport();
            }
            case "jdk" -> new JdkHttpTransport();
            default -> throw new IllegalStateException("loadflow.channels.transport is vertx, rest-client or jdk, got '"
                    + config.transport() + "'");
        }, clock, senders.stream().toList(), new TwilioSms.Ledger(new PgProviderMessages(pool), outbox));
    }

    @Produces
    @Singleton
    ChannelGuards guards(DispatcherConfig config, ChannelsConfig channels, ChannelClients clients, MeterRegistry registry,
                         Pool pool, Clock clock) {
        Map<Channel, ChannelsConfig.Calls> builtIn = Map.of(Channel.SMS, channels.sms(), Channel.HERO, channels.hero(),
                Channel.SLACK, channels.slack(), Channel.FANOUT, channels.stageWebhooks());
        ChannelGuards guards = new ChannelGuards(config.circuit(), channel -> {
            ChannelsConfig.Calls calls = builtIn.get(channel);
            if (calls != null) {
                return new ChannelGuards.Pace(calls.maxConcurrency(), calls.rate());
            }
            return clients.sender(channel).map(ChannelSender::pace).orElseThrow(() -> new IllegalArgumentException(
                    channel.wire() + " is not sent by this dispatcher"));
        }, registry, new CircuitRecorder(new PgChannelCircuits(pool), clock), System::nanoTime);
        guards.register(Channel.SMS, Channel.HERO, Channel.SLACK, Channel.FANOUT);
        guards.register(clients.added().toArray(Channel[]::new));
        return guards;
    }

    /**
     * Refuses to start when an environment variable of a per-client secret or a per-channel Slack
     * webhook reaches no client or channel: it would be ignored, and a client's webhooks go out
     * unsigned, or its posts to another channel, without a word.
     */
    void checkPerClientEnvironment(@Observes StartupEvent started, ChannelsConfig channels) {
        PerClientKeys.checkEnvironment(System.getenv(), "LOADFLOW_CHANNELS_STAGE_WEBHOOKS_CLIENTS_", "_SECRET",
                channels.stageWebhooks().clients().keySet(), "loadflow.channels.stage-webhooks.clients.<id>.secret");
        PerClientKeys.checkEnvironment(System.getenv(), "LOADFLOW_CHANNELS_SLACK_WEBHOOKS_", "",
                channels.slack().webhooks().keySet(), "loadflow.channels.slack.webhooks.<id>");
    }

    /** Refuses to start when a retention setting is shorter than a dedupe that depends on it. */
    void checkRetention(@Observes StartupEvent started, RetentionConfig retention) {
        RetentionHorizons.check(retention);
    }

    @Produces
    @Singleton
    RetryPolicy retryPolicy(DispatcherConfig config) {
        return new RetryPolicy(config.backoffBase(), config.backoffMax(), config.retryBudget(), new SecureRandom());
    }

    @Produces
    @Singleton
    RowDispatcher rowDispatcher(Outbox outbox, LoadQueue queue, ChannelClients channels, ChannelsConfig channelsConfig,
                                TimerStore timers, Pool pool, ProcessedEvents processed, ChannelGuards guards,
                                RetryPolicy retries, OpsAlerts alerts, DispatcherMetrics metrics, Clock clock,
                                Traces traces, DispatcherConfig config) {
        Delivery delivery = new Delivery(channels, new InternalActions(timers, new PgLoadStages(pool), clock),
                new StageWebhooks(processed, channels, channelsConfig.stageWebhooks().timeout(), clock,
                        channelsConfig.stageWebhooks().clients().entrySet().stream().collect(Collectors.toMap(
                                Map.Entry::getKey, client -> client.getValue().secret()))), guards);
        Duration halfLease = config.lease().dividedBy(2);
        return new RowDispatcher(outbox, delivery, new Finisher(outbox, queue, retries, alerts, metrics, clock,
                channel -> channels.reconciler(channel).isPresent()), metrics, clock, traces,
                halfLease.compareTo(RowDispatcher.SEND_ROOM) < 0 ? halfLease : RowDispatcher.SEND_ROOM);
    }

    @Produces
    @Singleton
    DispatchLoop loop(Outbox outbox, RowDispatcher dispatcher, PgNotifications notifications, Clock clock,
                      DispatcherConfig config, LoopConfig loops, ChannelGuards guards, ChannelClients clients,
                      DatabaseAnswers database) {
        // a channel with no sender here (an action type added to the workers before this dispatcher has its
        // sender, during a deploy) is not claimed: its rows wait, and the oldest-pending gauge shows them
        DispatchLoop loop = new DispatchLoop(outbox, dispatcher, notifications.signal(PgNotifications.OUTBOX), clock, config.batchSize(),
                channel -> channel == Channel.INTERNAL ? config.concurrency()
                        : clients.sends(channel) ? guards.capacity(channel) : 0,
                config.pollInterval(), config.linger(), loops.maxBackoff());
        loop.resumeWhen(database);
        return loop;
    }
}

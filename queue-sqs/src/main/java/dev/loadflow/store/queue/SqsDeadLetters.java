package dev.loadflow.store.queue;

import dev.loadflow.model.json.JsonReader;
import dev.loadflow.store.audit.AdminAudit;
import dev.loadflow.store.audit.AuditRecord;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static dev.loadflow.store.queue.SqsFifoLoadQueue.ENQUEUED_AT;
import static dev.loadflow.store.queue.SqsFifoLoadQueue.MESSAGE_ID;
import static dev.loadflow.store.queue.SqsFifoLoadQueue.PARKED_AT;
import static dev.loadflow.store.queue.SqsFifoLoadQueue.REASON;
import static dev.loadflow.store.queue.SqsFifoLoadQueue.RECEIVE_COUNT;
import static dev.loadflow.store.queue.SqsFifoLoadQueue.attribute;
import static dev.loadflow.store.queue.SqsFifoLoadQueue.deduplicationId;
import static dev.loadflow.store.queue.SqsFifoLoadQueue.text;

/**
 * {@link DeadLetters} of {@link SqsFifoLoadQueue}: its dead-letter FIFO queue, where a park sends
 * a message with its reason, receive count and times as message attributes. The dead-letter
 * queue's own retention period decides how long they are kept; there is no acknowledgement.
 */
public final class SqsDeadLetters implements DeadLetters {

    private final SqsClient sqs;
    private final String queueUrl;
    private final String deadLetterQueueUrl;
    private final Clock clock;
    private final AdminAudit audits;

    /** @param audits where redrives are recorded (SQS has no transaction to write them in) */
    public SqsDeadLetters(SqsClient sqs, String queueUrl, String deadLetterQueueUrl, Clock clock, AdminAudit audits) {
        this.sqs = sqs;
        this.queueUrl = queueUrl;
        this.deadLetterQueueUrl = deadLetterQueueUrl;
        this.clock = clock;
        this.audits = audits;
    }

    /** Peeks at the dead-letter queue (visibility 0: nothing is taken), newest parked first. */
    @Override
    public List<ParkedMessage> parked(int limit) {
        List<ParkedMessage> parked = new ArrayList<>();
        for (Message m : sqs.receiveMessage(b -> b.queueUrl(deadLetterQueueUrl).maxNumberOfMessages(Math.min(limit, 10))
                .visibilityTimeout(0).messageSystemAttributeNames(MessageSystemAttributeName.MESSAGE_GROUP_ID)
                .messageAttributeNames("All")).messages()) {
            parked.add(new ParkedMessage(m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID),
                    attribute(m, MESSAGE_ID), m.body(), Instant.parse(attribute(m, ENQUEUED_AT)),
                    Integer.parseInt(attribute(m, RECEIVE_COUNT)), Instant.parse(attribute(m, PARKED_AT)),
                    attribute(m, REASON), null));
        }
        parked.sort((a, b) -> b.parkedAt().compareTo(a.parkedAt()));
        return parked;
    }

    /**
     * Looks for the message among the dead-letter queue's first ten, sends it to the load queue
     * (with a fresh deduplication id: the original may still be inside SQS's 5-minute window)
     * and deletes it from the dead-letter queue.
     */
    @Override
    public Optional<Long> redrive(String loadId, String messageId, AuditRecord audit) {
        List<Message> batch = sqs.receiveMessage(b -> b.queueUrl(deadLetterQueueUrl).maxNumberOfMessages(10)
                .visibilityTimeout(30).messageSystemAttributeNames(MessageSystemAttributeName.MESSAGE_GROUP_ID)
                .messageAttributeNames("All")).messages();
        Optional<Long> auditId = Optional.empty();
        for (Message m : batch) {
            boolean match = auditId.isEmpty() && loadId.equals(m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID))
                    && messageId.equals(attribute(m, MESSAGE_ID));
            if (match) {
                // SQS has no transaction to share with the audit: its row comes first, so no change goes unaudited
                // (a redrive that then fails leaves a second row saying so)
                auditId = Optional.of(audits.record(audit, "{\"redriven\": true}", clock.instant()));
                try {
                    sqs.sendMessage(b -> b.queueUrl(queueUrl).messageBody(m.body()).messageGroupId(loadId)
                            .messageDeduplicationId(deduplicationId(loadId, messageId + "#redrive-" + clock.millis()))
                            .messageAttributes(Map.of(MESSAGE_ID, text(messageId), ENQUEUED_AT, text(clock.instant().toString()))));
                    sqs.deleteMessage(b -> b.queueUrl(deadLetterQueueUrl).receiptHandle(m.receiptHandle()));
                } catch (RuntimeException e) {
                    audits.record(audit, failed(e), clock.instant());
                    throw e;
                }
            } else {
                sqs.changeMessageVisibility(b -> b.queueUrl(deadLetterQueueUrl).receiptHandle(m.receiptHandle()).visibilityTimeout(0));
            }
        }
        return auditId;
    }

    private static String failed(RuntimeException e) {
        // a JSON tree on purpose: this library has no Quarkus to register a record for Jackson in a native image
        return JsonReader.MAPPER.createObjectNode().put("redriven", false)
                .put("error", String.valueOf(e.getMessage())).toString();
    }
}

package dev.loadflow.store.queue;

import java.util.UUID;

/**
 * A receipt handle of {@link PgLoadQueue}: the delivery's uuid (the run's
 * {@code in_flight_handle}, written on each of its messages), a slash and the message's id, a
 * colon, and the message's load, so that the group is found by its primary key and the message
 * by the group's.
 */
record PgReceiptHandle(UUID uuid, long id, String loadId) {

    private static final int UUID_LENGTH = 36;

    /** Null for anything that is no handle of this queue: a stale or foreign handle. */
    static PgReceiptHandle parse(String receiptHandle) {
        if (receiptHandle == null || receiptHandle.length() < UUID_LENGTH) {
            return null;
        }
        try {
            UUID uuid = UUID.fromString(receiptHandle.substring(0, UUID_LENGTH));
            char next = receiptHandle.length() > UUID_LENGTH ? receiptHandle.charAt(UUID_LENGTH) : 0;
            int colon = receiptHandle.indexOf(':', UUID_LENGTH + 1);
            if (next != '/' || colon < 0 || colon == receiptHandle.length() - 1) {
                return null;
            }
            return new PgReceiptHandle(uuid, Long.parseLong(receiptHandle.substring(UUID_LENGTH + 1, colon)),
                    receiptHandle.substring(colon + 1));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return uuid + "/" + id + ":" + loadId;
    }
}

package dev.loadflow.service.security;

import io.quarkus.logging.LoggingFilter;
import org.jboss.logmanager.ExtLogRecord;

import java.util.logging.Filter;
import java.util.logging.LogRecord;

/**
 * Masks the phone numbers ({@link PhoneMask}) and takes out the credentials ({@link Credentials})
 * of every log line before a handler writes it: logs are read by more people than the admin
 * APIs' operators, and kept longer. The message is formatted first, so a number or a secret
 * passed as a parameter is caught too; an exception's own message is not rewritten. Named
 * {@value #NAME} for the handlers' {@code filter} keys.
 */
@LoggingFilter(name = PhonesMaskedInLogs.NAME)
public final class PhonesMaskedInLogs implements Filter {

    public static final String NAME = "phones-masked";

    @Override
    public boolean isLoggable(LogRecord record) {
        if (record instanceof ExtLogRecord ext) {
            String message = ext.getFormattedMessage();
            String masked = Credentials.redact(PhoneMask.mask(message));
            if (masked != null && !masked.equals(message)) {
                ext.setMessage(masked, ExtLogRecord.FormatStyle.NO_FORMAT);
                ext.setParameters(null);
            }
        }
        return true;
    }
}

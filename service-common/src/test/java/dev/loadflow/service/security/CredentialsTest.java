package dev.loadflow.service.security;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.eclipse.microprofile.config.Config;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;

/** What a viewer, a log reader or the audit trail may see of a text that carried a credential. */
class CredentialsTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            slack webhook    | no answer from https://hooks.slack.com/services/T0001/B0001/abcdefXYZ: timeout | no answer from https://hooks.slack.com/***: timeout
            slack token      | Slack refused xoxb-1234-5678-abcdEFGH                                         | Slack refused xoxb-***
            url password     | connect to postgres://loadflow:hunter2hunter2@db:5432 failed                  | connect to postgres://***@db:5432 failed
            query key        | GET https://api.example.test/v1?api_key=abc123456&page=2                      | GET https://api.example.test/v1?api_key=***&page=2
            bearer           | sent Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.e30.sig                      | sent Authorization: Bearer ***
            webhook secret   | secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw was refused                     | secret whsec_*** was refused
            nothing secret   | Twilio answered 400: The 'To' number +1***00 is not valid                      | Twilio answered 400: The 'To' number +1***00 is not valid
            """)
    void credentialsOfEveryKnownShapeAreMasked(String kind, String text, String redacted) {
        assertThat(Credentials.redact(text)).isEqualTo(redacted);
    }

    @Test
    void aLogLineCarriesNoCredentialNorPhoneNumber() {
        ExtLogRecord record = new ExtLogRecord(Level.WARNING, "posting for %s to %s failed", ExtLogRecord.FormatStyle.PRINTF,
                CredentialsTest.class.getName());
        record.setParameters(new Object[] {"+15550100", "https://hooks.slack.com/services/T1/B2/c3d4e5"});

        assertThat(new PhonesMaskedInLogs().isLoggable(record)).isTrue();

        assertThat(record.getFormattedMessage()).isEqualTo("posting for +1***00 to https://hooks.slack.com/*** failed");
    }

    @Test
    void theValuesOfThisServicesSecretSettingsAreMaskedWhereverTheyAppear() {
        Config config = new SmallRyeConfigBuilder().withSources(new PropertiesConfigSource(Map.of(
                "loadflow.channels.sms.twilio.auth-token", "0123456789abcdef0123456789abcdef",
                "LOADFLOW_CHANNELS_SLACK_WEBHOOKS_HERO_CLIENT_B", "https://relay.client-b.test/in/7f3a9c2e",
                "loadflow.channels.sms.url", "http://sms-service.integrations.svc",
                "quarkus.http.port", "8082"), "test", 100)).build();

        Credentials.learn(config);

        assertThat(Credentials.redact("Twilio 401 with token 0123456789abcdef0123456789abcdef; "
                + "no answer from https://relay.client-b.test/in/7f3a9c2e; sms at http://sms-service.integrations.svc:8082"))
                .isEqualTo("Twilio 401 with token ***; no answer from ***; sms at http://sms-service.integrations.svc:8082");
        assertThat(Credentials.isSecretSetting("LOADFLOW_SOURCES_TWILIO_AUTH_TOKEN")).isTrue();
        assertThat(Credentials.isSecretSetting("loadflow.channels.slack.url")).isFalse();
    }
}

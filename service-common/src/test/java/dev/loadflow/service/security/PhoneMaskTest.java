package dev.loadflow.service.security;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class PhoneMaskTest {

    @ParameterizedTest(name = "{0} → {1}")
    @CsvSource(delimiter = '|', textBlock = """
            +15550100                                  | +1***00
            +447700900123                              | +44***23
            +353861234567                              | +353***67
            +8613800138000                             | +86***00
            call +15550100 or +447700900123 now        | call +1***00 or +44***23 now
            my other phone is 312-555-0100             | my other phone is ***00
            (312) 555 0100, or 312.555.0101            | ***00, or ***01
            481207/ask:eta_request:ping_0700/1/send_sms | 481207/ask:eta_request:ping_0700/1/send_sms
            at 2026-11-30T07:00:00Z, load 3125550100   | at 2026-11-30T07:00:00Z, load 3125550100
            """)
    void aNumberKeepsItsCountryCodeAndLastTwoDigitsAndNothingElseIsTouched(String text, String masked) {
        assertThat(PhoneMask.mask(text)).isEqualTo(masked);
    }
}

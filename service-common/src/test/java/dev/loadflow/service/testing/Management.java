package dev.loadflow.service.testing;

import io.restassured.config.HttpClientConfig;
import io.restassured.config.RestAssuredConfig;
import io.restassured.specification.RequestSpecification;
import org.eclipse.microprofile.config.ConfigProvider;

import static io.restassured.RestAssured.given;

/** Requests to the service's management interface (health, metrics), which tests reach on its test port. */
public final class Management {

    /** A probe gives up after 5 s, as the shipped manifests' probes do. */
    private static final RestAssuredConfig PROBE = RestAssuredConfig.config().httpClient(HttpClientConfig.httpClientConfig()
            .setParam("http.connection.timeout", 5_000).setParam("http.socket.timeout", 5_000));

    private Management() {
    }

    /**
     * A probe of {@code /q/health/<which>} ({@code live}, {@code ready}) as Kubernetes makes it:
     * the status it answered, or 0 when it gave no answer within the manifests' 5 s timeout.
     */
    public static int probe(String which) {
        try {
            return given().config(PROBE).port(port()).get("/q/health/" + which).then().extract().statusCode();
        } catch (Exception timedOut) {
            return 0;
        }
    }

    /** The management interface's port of the service under test (see {@link PostgresTestResource#managementPort()}). */
    public static int port() {
        int chosen = PostgresTestResource.managementPort();
        return chosen > 0 ? chosen
                : ConfigProvider.getConfig().getOptionalValue("quarkus.management.test-port", Integer.class).orElse(9001);
    }

    /** A request to the management interface. */
    public static RequestSpecification management() {
        return given().port(port());
    }
}

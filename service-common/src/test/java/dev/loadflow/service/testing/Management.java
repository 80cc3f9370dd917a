package dev.loadflow.service.testing;

import io.restassured.specification.RequestSpecification;
import org.eclipse.microprofile.config.ConfigProvider;

import static io.restassured.RestAssured.given;

/** Requests to the service's management interface (health, metrics), which tests reach on its test port. */
public final class Management {

    private Management() {
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

package dev.loadflow.service.problem;

import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

import java.util.List;

/**
 * Describes how every loadflow endpoint refuses, in each service's OpenAPI document: the
 * {@link Problem} schema, and a {@code default} response of {@code application/problem+json}
 * on every operation that names no refusal of its own. Registered with
 * {@code mp.openapi.filter=dev.loadflow.service.problem.ProblemDocuments}.
 */
public class ProblemDocuments implements OASFilter {

    private static final String REF = "#/components/schemas/Problem";

    @Override
    public Operation filterOperation(Operation operation) {
        APIResponses responses = operation.getResponses() == null ? OASFactory.createAPIResponses() : operation.getResponses();
        if (!responses.hasAPIResponse(APIResponses.DEFAULT)) {
            responses.addAPIResponse(APIResponses.DEFAULT, OASFactory.createAPIResponse()
                    .description("A refusal (bad input 400, no credential 401, no right 403, unknown 404, conflict 409, "
                            + "too large 413, database unreachable 503 with Retry-After): an RFC 7807 problem document")
                    .content(OASFactory.createContent().addMediaType(Problem.MEDIA_TYPE,
                            OASFactory.createMediaType().schema(OASFactory.createSchema().ref(REF)))));
        }
        return operation.responses(responses);
    }

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        Components components = openAPI.getComponents() == null ? OASFactory.createComponents() : openAPI.getComponents();
        components.addSchema("Problem", OASFactory.createSchema()
                .addType(Schema.SchemaType.OBJECT)
                .description("RFC 7807: what was refused and why; field names the offending input")
                .addProperty("type", text("about:blank"))
                .addProperty("title", text("a short summary of the refusal"))
                .addProperty("status", OASFactory.createSchema().addType(Schema.SchemaType.INTEGER).description("the HTTP status"))
                .addProperty("detail", text("what was wrong, in words an operator can act on"))
                .addProperty("field", text("the input that was refused, when one was"))
                .required(List.of("type", "title", "status")));
        openAPI.components(components);
    }

    private static Schema text(String description) {
        return OASFactory.createSchema().addType(Schema.SchemaType.STRING).description(description);
    }
}

import { HttpApiBuilder, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect } from "effect"
import { BreinApi } from "../../schema/http/Api.ts"
import { HTML, UNSUBSCRIBE_PREFIX } from "../../schema/http/Unsubscribe.ts"
import { isObject, type JsonObject, portable } from "../../schema/tools/JsonSchema.ts"
import { type RegisteredTool, Registry } from "../../services/tools/Registry.ts"
import { responseSchema } from "../mcp/JsonSchemas.ts"
import { packageVersion } from "../PackageVersion.ts"

const EXECUTE = "/api/v1/tools/{id}/execute"
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/** One path per tool, so a client generated from the document is typed per tool. */
const toolPath = (generic: JsonObject, tool: RegisteredTool) => {
  const { id, label, description } = tool.descriptor
  const parameters = Array.isArray(generic["parameters"]) ? generic["parameters"].filter((p) => !(isObject(p) && p["in"] === "path")) : []
  const responses = isObject(generic["responses"]) ? generic["responses"] : {}
  return {
    post: {
      ...generic,
      operationId: `tools.execute.${id}`,
      summary: label,
      description,
      parameters,
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: { type: "object", required: ["input"], properties: { input: ref(`${id}.Input`) }, additionalProperties: false }
          }
        }
      },
      responses: {
        ...responses,
        "200": {
          description: "The tool's answer: its output as data, with meta",
          content: { "application/json": { schema: ref(`${id}.Output`) } }
        }
      }
    }
  }
}

/**
 * The responses of an unsubscribe link as a recipient gets them: every refusal there is a page
 * (`refuseAt`), with the typed error's status, never the JSON error an API client reads.
 */
const asPages = (pathItem: unknown) => {
  if (!isObject(pathItem)) return pathItem
  const operations = Object.entries(pathItem).map(([method, operation]) => {
    if (!isObject(operation) || !isObject(operation["responses"])) return [method, operation]
    const responses = Object.fromEntries(
      Object.entries(operation["responses"]).map(([status, response]) => {
        if (!isObject(response) || !isObject(response["content"]) || !("application/json" in response["content"])) return [status, response]
        const description = typeof response["description"] === "string" ? response["description"] : status
        return [status, {
          ...response,
          description: `${description}: an HTML page in the recipient's language`,
          content: { [HTML]: { schema: { type: "string" } } }
        }]
      })
    )
    return [method, { ...operation, responses }]
  })
  return Object.fromEntries(operations)
}

/** The OpenAPI document: the API as declared, its version, this server, and every tool's own input and output. */
export const OpenApiLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const registry = yield* Registry
    const version = yield* packageVersion
    const spec = OpenApi.fromApi(
      BreinApi.annotate(OpenApi.Version, version).annotate(OpenApi.Servers, [
        { url: "/", description: "The server that answers this document" }
      ])
    )
    const paths: JsonObject = { ...spec.paths }
    const execute = paths[EXECUTE]
    const generic = isObject(execute) && isObject(execute["post"]) ? execute["post"] : {}
    for (const path of Object.keys(paths)) if (path.startsWith(UNSUBSCRIBE_PREFIX)) paths[path] = asPages(paths[path])
    const schemas: JsonObject = { ...spec.components.schemas }
    for (const tool of registry.external) {
      schemas[`${tool.descriptor.id}.Input`] = portable(tool.document.inputSchema)
      schemas[`${tool.descriptor.id}.Output`] = responseSchema(tool.document.outputSchema)
      paths[`/api/v1/tools/${tool.descriptor.id}/execute`] = toolPath(generic, tool)
    }
    const document = { ...spec, paths, components: { ...spec.components, schemas } }
    yield* router.get("/openapi.json", HttpServerResponse.json(document).pipe(Effect.orDie))
  })
)

import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import { Config, Duration, Effect, Layer, Option } from "effect"
import { setting, WholeNumberFromString } from "../schema/Setting.ts"

/** Where spans go, by the OpenTelemetry variables: the traces endpoint wins over the base endpoint (+ /v1/traces). */
export const TracingConfig = Config.all({
  endpoint: Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT")),
  tracesEndpoint: Config.option(Config.string("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")),
  serviceName: Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("brein")),
  // 0 made the exporter loop without pause
  exportInterval: setting("OTEL_BSP_SCHEDULE_DELAY", WholeNumberFromString({ min: 1, max: 86_400_000, unit: "milliseconds" })).pipe(
    Config.withDefault(5000),
    Config.map(Duration.millis)
  )
})

const tracesUrl = (config: Config.Config.Success<typeof TracingConfig>) =>
  Option.orElse(
    Option.filter(Option.map(config.tracesEndpoint, (url) => url.trim()), (url) => url !== ""),
    () => Option.map(Option.filter(config.endpoint, (url) => url.trim() !== ""), (url) => `${url.trim().replace(/\/+$/, "")}/v1/traces`)
  )

/** The exporter's HTTP client, imported only where spans are exported: a command's start-up does not load undici. */
const exporterClient = Layer.unwrapEffect(
  Effect.map(Effect.promise(() => import("@effect/platform-node/NodeHttpClient")), (client) => client.layerUndici)
)

/**
 * Spans exported in OTLP/JSON over HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
 * is set, as OTEL_SERVICE_NAME (default brein); batched every OTEL_BSP_SCHEDULE_DELAY ms and flushed when the
 * program stops. Without an endpoint nothing is installed: spans stay on Effect's native tracer and go nowhere.
 */
export const TracingLive = Layer.unwrapEffect(
  Effect.map(TracingConfig, (config) =>
    Option.match(tracesUrl(config), {
      onNone: () => Layer.empty,
      onSome: (url) =>
        OtlpTracer.layer({ url, resource: { serviceName: config.serviceName }, exportInterval: config.exportInterval }).pipe(
          Layer.provide(OtlpSerialization.layerJson),
          Layer.provide(exporterClient)
        )
    }))
)

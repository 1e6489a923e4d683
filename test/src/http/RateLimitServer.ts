import { ConfigProvider, Effect, Layer } from "effect"
import { servicesWith } from "../../../layers/App.ts"
import { CoreConnector, EchoConnector } from "../../../services/connectors/Core.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { listen, serveOn } from "../../../src/http/Server.ts"
import { shiftedClock } from "../../support/ShiftedClock.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"

/**
 * REST and /mcp as `serve` mounts them, under the given rate limits and a clock the test can move on.
 * Every key lookup the gate asks for is counted (the lookup is the only database work of a refused key).
 */
export const limitedServer = (limits: { readonly BREIN_RATE_LIMIT_KEY?: string; readonly BREIN_RATE_LIMIT_FAILURES?: string }) => {
  const clock = shiftedClock()
  const lookups = { count: 0 }
  const CountedLookups = Layer.effect(
    Workspaces,
    Effect.map(Workspaces, (workspaces) =>
      Workspaces.make({
        ...workspaces,
        authenticate: (key) =>
          Effect.suspend(() => {
            lookups.count += 1
            return workspaces.authenticate(key)
          })
      }))
  )
  const settings = ConfigProvider.fromMap(new Map(Object.entries(limits))).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv()))
  const layer = serveOn(listen(0)).pipe(
    Layer.provide(CountedLookups),
    Layer.provideMerge(servicesWith([CoreConnector, EchoConnector])),
    Layer.provideMerge(TestDatabase),
    Layer.provide(Layer.merge(clock.layer, Layer.setConfigProvider(settings)))
  )
  return { layer, skip: clock.skip, lookups }
}

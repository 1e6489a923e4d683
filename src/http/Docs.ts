import { Effect, Layer } from "effect"

/**
 * The docs page at /docs (Scalar, from @effect/platform). Its script is about a third of the bundled
 * program, so it is imported when a server's app is built, by its own path: the commands that serve
 * nothing (keys, workspaces, audit, --version) never load or compile it. The bundle's platform index
 * leaves it out for the same reason (scripts/bundle.mjs).
 */
export const DocsLive = Layer.unwrapEffect(
  Effect.map(Effect.promise(() => import("@effect/platform/HttpApiScalar")), (Scalar) => Scalar.layer({ path: "/docs" }))
)

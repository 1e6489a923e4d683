import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { ToolFailed } from "../../../schema/Errors.ts"
import type { Hints } from "../../../schema/tools/Definition.ts"
import { CoreConnector, EchoConnector } from "../../../services/connectors/Core.ts"
import { Persist } from "../../../services/tools/Persist.ts"
import { Registry } from "../../../services/tools/Registry.ts"
import { catalog, connector } from "../../../services/tools/Source.ts"
import { action, connectedAction, read } from "../../../services/tools/Tool.ts"

export const pure: Hints = { readOnly: true, destructive: false, idempotent: true, openWorld: false }
export const writes: Hints = { readOnly: false, destructive: false, idempotent: false, openWorld: false }

/** Scratch tables the tools below write to; each test database gets them from the test. */
export const createScratchTables = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.all([
    sql`CREATE TABLE IF NOT EXISTS probe_items (workspace_id text NOT NULL, label text NOT NULL)`,
    sql`CREATE TABLE IF NOT EXISTS probe_notes (workspace_id text NOT NULL, text text NOT NULL)`
  ], { discard: true }))

const base = { level: 0, stages: [] } as const

export const probeSync = read({
  ...base,
  id: "probe.conexion.sincronizar",
  family: "probe",
  label: "Sincronizar probe",
  description: "Copies the given labels into the cache, then optionally fails as an upstream would.",
  plan: "paid",
  hints: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
  cost: { kind: "read" },
  input: Schema.Struct({
    labels: Schema.Array(Schema.String),
    failAfterWriting: Schema.optionalWith(Schema.Boolean, { default: () => false })
  }),
  output: Schema.Struct({ written: Schema.Int, sameBuffer: Schema.Boolean }),
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const persist = yield* Persist
      yield* Effect.forEach(input.labels, (label) =>
        ctx.persist.sql`INSERT INTO probe_items (workspace_id, label) VALUES (${persist.workspaceId}, ${label})`.pipe(Effect.orDie))
      if (input.failAfterWriting) {
        return yield* new ToolFailed({ toolId: "probe.conexion.sincronizar", message: "the upstream dropped the session" })
      }
      return { written: input.labels.length, sameBuffer: persist === ctx.persist }
    })
})

export const probeItems = connectedAction({
  ...base,
  id: "probe.items.consultar",
  family: "probe",
  label: "Consultar items",
  description: "Reads the synced labels of this workspace.",
  plan: "paid",
  hints: pure,
  cost: { kind: "read" },
  scope: "probe items synced by probe.conexion.sincronizar",
  input: Schema.Struct({}),
  output: Schema.Struct({ labels: Schema.Array(Schema.String) }),
  handler: (_input, ctx) =>
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) =>
        sql<{ label: string }>`SELECT label FROM probe_items WHERE workspace_id = ${ctx.principal.workspaceId} ORDER BY label`.pipe(
          Effect.orDie,
          Effect.map((rows) => ({ labels: rows.map((r) => r.label) }))
        )
    )
})

export const ProbeConnector = connector({
  id: "probe",
  label: "Probe",
  plan: "paid",
  requiresConnection: true,
  tools: [probeSync, probeItems]
})

export const noteWrite = action({
  ...base,
  id: "note_write",
  family: "testing",
  label: "Write a note",
  description: "Writes a note to the workspace's own records (not through Persist).",
  plan: "free",
  hints: writes,
  cost: { kind: "free" },
  input: Schema.Struct({ text: Schema.String }),
  output: Schema.Struct({ saved: Schema.Boolean }),
  handler: (input, ctx) =>
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) =>
        sql`INSERT INTO probe_notes (workspace_id, text) VALUES (${ctx.principal.workspaceId}, ${input.text})`.pipe(
          Effect.orDie,
          Effect.as({ saved: true })
        )
    )
})

export const annotated = action({
  ...base,
  id: "annotated_answer",
  family: "testing",
  label: "Annotated answer",
  description: "Answers with warnings, a hint and a next action next to its data.",
  plan: "free",
  hints: pure,
  cost: { kind: "free" },
  input: Schema.Struct({}),
  output: Schema.Struct({ total: Schema.Int }),
  handler: (_input, ctx) =>
    Effect.gen(function* () {
      yield* ctx.annotate({ warnings: ["the period is not synced"] })
      yield* ctx.annotate({ hint: "sync first", next_actions: [{ tool: "probe.conexion.sincronizar", reason: "fill the cache" }] })
      return { total: 3 }
    })
})

export const persistSpy = action({
  ...base,
  id: "persist_spy",
  family: "testing",
  label: "Persist spy",
  description: "Reports whether a Persist buffer reached an action tool at run time.",
  plan: "free",
  hints: pure,
  cost: { kind: "free" },
  input: Schema.Struct({}),
  output: Schema.Struct({ sawPersist: Schema.Boolean }),
  handler: () => Effect.map(Effect.serviceOption(Persist), (found) => ({ sawPersist: Option.isSome(found) }))
})

export const internalOnly = action({
  ...base,
  id: "board_peek",
  family: "testing",
  label: "Board peek",
  description: "Session-only: reachable in-process, never from HTTP or MCP.",
  plan: "free",
  hints: pure,
  cost: { kind: "free" },
  external: false,
  input: Schema.Struct({}),
  output: Schema.Struct({ cards: Schema.Int }),
  handler: () => Effect.succeed({ cards: 0 })
})

export const premium = action({
  ...base,
  id: "premium_report",
  family: "testing",
  label: "Premium report",
  description: "A paid catalog tool.",
  plan: "paid",
  hints: pure,
  cost: { kind: "free" },
  input: Schema.Struct({}),
  output: Schema.Struct({ ok: Schema.Boolean }),
  handler: () => Effect.succeed({ ok: true })
})

export const TestingCatalog = catalog({
  family: "testing",
  tools: [noteWrite, annotated, persistSpy, internalOnly, premium]
})

export const fixtureSources = [CoreConnector, EchoConnector, ProbeConnector, TestingCatalog] as const

export const FixtureRegistry = Registry.layer(fixtureSources)

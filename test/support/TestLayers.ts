import type { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { ServicesLive } from "../../layers/App.ts"
import type { ConnectionId } from "../../schema/Ids.ts"
import type { CallContext, Principal, Surface } from "../../schema/Principal.ts"
import type { Plan } from "../../schema/tools/Definition.ts"
import type { AuditKey } from "../../services/audit/AuditKey.ts"
import { AuditStore, AuditStoreFailed } from "../../services/audit/AuditStore.ts"
import { AuditStoreSql } from "../../services/audit/AuditStoreSql.ts"
import { AuditVerify } from "../../services/audit/AuditVerify.ts"
import { Executor } from "../../services/pipeline/Executor.ts"
import type { RegistryInvalid } from "../../services/tools/Invariants.ts"
import type { Registry } from "../../services/tools/Registry.ts"
import { Workspaces } from "../../services/workspace/Workspaces.ts"
import { auditKeyInTemp } from "./TestAuditKey.ts"
import { TestDatabase } from "./TestDatabase.ts"

/** The program's service graph (real registry, real audit store) over a fresh test database. */
export const ServicesTest = ServicesLive.pipe(Layer.provideMerge(TestDatabase))

/** The services over a registry of the test's own and any audit store (the SQL one by default). */
export const servicesWith = <RR>(
  registry: Layer.Layer<Registry, RegistryInvalid, RR>,
  store: Layer.Layer<AuditStore, never, SqlClient.SqlClient> = AuditStoreSql,
  key: Layer.Layer<AuditKey> = auditKeyInTemp
) =>
  Layer.mergeAll(Executor.Default, Workspaces.Default, AuditVerify.Default).pipe(
    Layer.provideMerge(registry),
    Layer.provideMerge(Layer.merge(store, key))
  )

/** An audit store that cannot write: the database behind the audit log is down. */
export const FailingAuditStore = Layer.succeed(
  AuditStore,
  AuditStore.of({
    lock: () => Effect.fail(new AuditStoreFailed({ cause: "audit database unreachable" })),
    heads: () => Effect.fail(new AuditStoreFailed({ cause: "audit database unreachable" })),
    insert: () => Effect.fail(new AuditStoreFailed({ cause: "audit database unreachable" })),
    appendLocked: () => Effect.fail(new AuditStoreFailed({ cause: "audit database unreachable" })),
    insertNested: () => Effect.fail(new AuditStoreFailed({ cause: "audit database unreachable" })),
    page: () => Effect.fail(new AuditStoreFailed({ cause: "audit database unreachable" })),
    byRequest: () => Effect.fail(new AuditStoreFailed({ cause: "audit database unreachable" })),
    checkpoint: () => Effect.fail(new AuditStoreFailed({ cause: "audit database unreachable" })),
    checkpoints: () => Effect.fail(new AuditStoreFailed({ cause: "audit database unreachable" })),
    writtenSinceCheckpoint: Effect.fail(new AuditStoreFailed({ cause: "audit database unreachable" })),
    database: Effect.fail(new AuditStoreFailed({ cause: "audit database unreachable" }))
  })
)

export const uniqueName = (prefix: string) => `${prefix}-${randomBytes(4).toString("hex")}`

/** Issues a key for a new workspace on the given plan and authenticates with it. */
export const issuePrincipal = (plan: Plan, workspace: string = uniqueName(plan)) =>
  Effect.gen(function* () {
    const workspaces = yield* Workspaces
    const issued = yield* workspaces.issueKey({ workspace, plan: Option.some(plan) })
    const principal = yield* workspaces.authenticate(Redacted.value(issued.key)).pipe(Effect.orDie)
    return { key: issued.key, workspace: issued.workspace, principal }
  })

export const callContext = (
  principal: Principal,
  options: { readonly surface?: Surface; readonly connectionId?: ConnectionId } = {}
): CallContext => ({
  surface: options.surface ?? "library",
  principal,
  ...(options.connectionId === undefined ? {} : { connectionId: options.connectionId })
})

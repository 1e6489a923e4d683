import { Effect, Layer } from "effect"
import { HumansLive } from "../../../layers/Humans.ts"
import { AuditStoreSql } from "../../../services/audit/AuditStoreSql.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { auditKeyInTemp } from "../../support/TestAuditKey.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { uniqueName } from "../../support/TestLayers.ts"

/** Users, CSRF tokens and activation over a fresh database, with an audit key of their own and the audit log. */
export const HumansTest = Layer.mergeAll(HumansLive, Workspaces.Default).pipe(
  Layer.provide(Layer.merge(auditKeyInTemp, AuditStoreSql)),
  Layer.provideMerge(TestDatabase)
)

export const newWorkspace = Effect.flatMap(Workspaces, (w) => w.create(uniqueName("people"), "paid")).pipe(
  Effect.orDie,
  Effect.flatMap((created) => Effect.flatMap(Workspaces, (w) => Effect.orDie(w.principalFor(created.name)))),
  Effect.map((principal) => ({ name: principal.workspaceName, id: principal.workspaceId, principal }))
)

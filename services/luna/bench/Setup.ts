import { Data, Effect, Either, Option, Redacted, Schema } from "effect"
import { GrantReason } from "../../../schema/budget/Budget.ts"
import { BoardItem } from "../../../schema/catalog/Session.ts"
import type { BriefSetup } from "../../../schema/luna/Brief.ts"
import type { Plan } from "../../../schema/tools/Definition.ts"
import { Credits } from "../../budget/Credits.ts"
import { Boards } from "../../catalog/Boards.ts"
import { Mailboxes } from "../../catalog/sequences/Mailboxes.ts"
import { newId } from "../../Ids.ts"
import { Executor } from "../../pipeline/Executor.ts"
import { Workspaces } from "../../workspace/Workspaces.ts"
import type { Owner } from "../WorkSessions.ts"
import { type Bindings, fillValue } from "./Placeholders.ts"

/** A brief's setup could not be applied: the brief, not the loop, is wrong. */
export class BriefSetupFailed extends Data.TaggedError("BriefSetupFailed")<{ readonly message: string }> {}

const failed = (message: string) => new BriefSetupFailed({ message })

/** A workspace of the brief's own (new each run: nothing of an earlier run is seen), its key and who asks. */
export const benchOwner = Effect.fn("Bench.owner")(function* (briefId: string, plan: Plan) {
  const workspaces = yield* Workspaces
  const suffix = (yield* newId("run")).slice(4, 14)
  const issued = yield* workspaces.issueKey({ workspace: `bench-${briefId}-${suffix}`, plan: Option.some(plan) })
  const principal = yield* workspaces.authenticate(Redacted.value(issued.key)).pipe(Effect.orDie)
  if (principal.keyId === null) return yield* Effect.dieMessage("an API key's principal has no key id")
  return { principal, owner: principal.keyId } satisfies Owner
})

const filled = (value: unknown, bindings: Bindings, where: string) =>
  Either.match(fillValue(value, bindings), {
    onLeft: (unbound) => Effect.fail(failed(`${where}: ${unbound.message}`)),
    onRight: Effect.succeed
  })

const filledAs = <A, I>(schema: Schema.Schema<A, I>, value: unknown, bindings: Bindings, where: string) =>
  Effect.flatMap(
    filled(value, bindings, where),
    (done) => Schema.decodeUnknown(schema)(done).pipe(Effect.mapError((error) => failed(`${where}: ${error.message}`)))
  )

/**
 * Applies a brief's setup to its session: credits, mailboxes (m1, m2…), calls through the executor
 * (s1, s2…: their answers as the model would read them), then the board and its selection.
 * Answers the bindings the brief's placeholders name.
 */
export const applySetup = Effect.fn("Bench.setup")(function* (who: Owner, sessionId: string, setup: BriefSetup) {
  const bindings = new Map<string, unknown>()
  const { principal } = who
  if (setup.credits !== undefined) {
    yield* (yield* Credits).grant(principal.workspaceId, principal.plan, setup.credits, GrantReason.make("bench setup"))
  }
  const mailboxes = yield* Mailboxes
  for (const [i, mailbox] of (setup.mailboxes ?? []).entries()) {
    const added = yield* mailboxes.add(principal.workspaceId, {
      email: mailbox.email,
      displayName: mailbox.display_name,
      dailyCap: mailbox.daily_cap ?? 200,
      minSpacingSeconds: mailbox.min_spacing_seconds ?? 60,
      spf: true,
      dkim: true,
      dmarc: true
    }).pipe(Effect.catchTag("MailboxNameInvalid", (invalid) => failed(`mailbox ${i + 1}: ${invalid.message}`)))
    if (Option.isNone(added)) return yield* failed(`mailbox ${i + 1}: ${mailbox.email} is given twice`)
    bindings.set(`m${i + 1}`, { id: added.value.id, email: added.value.email })
  }
  const executor = yield* Executor
  for (const [i, call] of (setup.calls ?? []).entries()) {
    const where = `setup call ${i + 1} (${call.tool})`
    const input = yield* filled(call.input, bindings, where)
    const response = yield* executor.call(call.tool, input, { surface: "library", principal, sessionId }).pipe(
      Effect.mapError((error) => failed(`${where}: ${error.message}`))
    )
    const { meta: _meta, ...payload } = response
    bindings.set(`s${i + 1}`, payload)
  }
  const boards = yield* Boards
  if (setup.board !== undefined && setup.board.length > 0) {
    yield* boards.show(principal, sessionId, yield* filledAs(Schema.Array(BoardItem), setup.board, bindings, "board"))
  }
  if (setup.selected !== undefined) {
    const ids = yield* filledAs(Schema.Array(Schema.String), setup.selected, bindings, "selected")
    yield* boards.select(principal, sessionId, ids, "replace").pipe(Effect.mapError((error) => failed(`selected: ${error.message}`)))
  }
  return bindings as Bindings
})

import { SqlClient } from "@effect/sql"
import { assert, expectTypeOf, layer } from "@effect/vitest"
import { Effect, Either } from "effect"
import type { Finding } from "../../../schema/catalog/SequenceTools.ts"
import { CurrentHuman, type Human } from "../../../schema/humans/Human.ts"
import { digestOf } from "../../../services/audit/Chain.ts"
import { Activation } from "../../../services/humans/Activation.ts"
import { Users } from "../../../services/humans/Users.ts"
import { HumansTest, newWorkspace } from "./HumansTest.ts"
import { insertPreflight, insertSequence, ledgerRows, sequenceState } from "./SequenceFixtures.ts"

/** A signed-in person of a new workspace. */
const signedIn = Effect.gen(function* () {
  const users = yield* Users
  const workspace = yield* newWorkspace
  const { user } = yield* users.create(workspace.name, "ana@acme.cl")
  const link = yield* users.issueLink(user)
  const opened = yield* users.signIn(new URL(link.url).searchParams.get("token") ?? "")
  return { workspace, human: opened.human }
})

const activateAs = (human: Human, sequenceId: string, version: number) =>
  Effect.flatMap(Activation, (activation) => activation.activate(sequenceId, version)).pipe(Effect.provideService(CurrentHuman, human))

const refusal = (human: Human, sequenceId: string, version: number) => Effect.flip(activateAs(human, sequenceId, version))

/** The audit rows activations left in a workspace's chain. */
const activationRows = (workspaceId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ principal: string; surface: string; outcome: string; inputDigest: string; outputDigest: string }>`
      SELECT principal, surface, outcome, input_digest, output_digest FROM audit_log
      WHERE chain = ${workspaceId} AND tool_id = 'sequences.activate' ORDER BY seq`.pipe(
        Effect.map((rows) => rows.map((row) => ({ ...row }))),
        Effect.orDie
      )
  )

layer(HumansTest, { excludeTestServices: true })("Activation", (it) => {
  it("activate needs CurrentHuman, which only the cookie session middleware provides", () => {
    type Needs = Effect.Effect.Context<ReturnType<Activation["activate"]>>
    expectTypeOf<Needs>().toEqualTypeOf<CurrentHuman>()
  })

  it.effect("a draft whose latest preflight checked this version without blockers is activated: one ledger row, status active", () =>
    Effect.gen(function* () {
      const { human, workspace } = yield* signedIn
      const sequence = yield* insertSequence(workspace.id)
      const preflight = yield* insertPreflight(workspace.id, sequence)
      const authorization = yield* activateAs(human, sequence.id, sequence.version)
      assert.deepInclude(authorization, {
        sequence_id: sequence.id,
        sequence_version: sequence.version,
        content_digest: sequence.contentDigest,
        recipients_digest: sequence.recipientsDigest,
        recipients: 2,
        preflight_id: preflight,
        user_id: human.userId,
        user_email: "ana@acme.cl",
        session_id: human.sessionId
      })
      const rows = yield* ledgerRows(sequence.id)
      assert.deepStrictEqual(rows.map((r) => r.id), [authorization.id])
      const state = yield* sequenceState(sequence.id)
      assert.strictEqual(state?.status, "active")
      assert.strictEqual(state?.activatedAt?.toISOString(), authorization.decided_at)

      const again = yield* refusal(human, sequence.id, sequence.version)
      assert.deepInclude(again, { _tag: "ActivationRefused", reason: "not_draft" })
      assert.lengthOf(yield* ledgerRows(sequence.id), 1)
      const listed = yield* Effect.flatMap(Activation, (a) => a.authorizations(sequence.id, workspace.id))
      assert.deepStrictEqual(listed, [authorization])
    }))

  it.effect("an activation leaves one audit row in the workspace's chain, with the person as principal; a refusal leaves none", () =>
    Effect.gen(function* () {
      const { human, workspace } = yield* signedIn
      const sequence = yield* insertSequence(workspace.id)
      assert.deepInclude(yield* refusal(human, sequence.id, sequence.version), { reason: "no_preflight" })
      assert.deepStrictEqual(yield* activationRows(workspace.id), [])
      yield* insertPreflight(workspace.id, sequence)
      const authorization = yield* activateAs(human, sequence.id, sequence.version)
      const rows = yield* activationRows(workspace.id)
      assert.deepStrictEqual(rows, [{
        principal: human.userId,
        surface: "http",
        outcome: "ok",
        inputDigest: digestOf({ sequence_id: sequence.id, version: sequence.version }),
        outputDigest: digestOf(authorization)
      }])
    }))

  it.effect("when its audit row cannot be written the activation is not committed: no ledger row, still a draft", () =>
    Effect.gen(function* () {
      const { human, workspace } = yield* signedIn
      const sequence = yield* insertSequence(workspace.id)
      yield* insertPreflight(workspace.id, sequence)
      const sql = yield* SqlClient.SqlClient
      // Fault injection: the audit log refuses this workspace's rows (the trigger names its chain, so other tests write on).
      const trigger = `refuse_${workspace.id.replace(/[^a-z0-9]/gi, "").toLowerCase()}`
      yield* sql.unsafe(`CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.chain = '${workspace.id}' THEN RAISE EXCEPTION 'audit refused by the test'; END IF; RETURN NEW; END $$`)
      yield* sql.unsafe(`CREATE TRIGGER ${trigger} BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION ${trigger}()`)
      const failed = yield* refusal(human, sequence.id, sequence.version).pipe(
        Effect.ensuring(Effect.orDie(sql.unsafe(`DROP TRIGGER ${trigger} ON audit_log; DROP FUNCTION ${trigger}()`)))
      )
      assert.strictEqual(failed._tag, "AuditUnavailable")
      assert.lengthOf(yield* ledgerRows(sequence.id), 0)
      assert.strictEqual((yield* sequenceState(sequence.id))?.status, "draft")
      assert.deepStrictEqual(yield* activationRows(workspace.id), [])
      // the fault is gone: the same person activates the same version
      yield* activateAs(human, sequence.id, sequence.version)
      assert.lengthOf(yield* activationRows(workspace.id), 1)
    }))

  it.effect("two people activating at once: one wins, the other is told the sequence is no longer a draft", () =>
    Effect.gen(function* () {
      const { human, workspace } = yield* signedIn
      const sequence = yield* insertSequence(workspace.id)
      yield* insertPreflight(workspace.id, sequence)
      const outcomes = yield* Effect.all([1, 2, 3].map(() => Effect.either(activateAs(human, sequence.id, sequence.version))), {
        concurrency: "unbounded"
      })
      assert.strictEqual(outcomes.filter(Either.isRight).length, 1)
      assert.deepStrictEqual(outcomes.filter(Either.isLeft).map((o) => o.left._tag === "ActivationRefused" && o.left.reason), [
        "not_draft",
        "not_draft"
      ])
      assert.lengthOf(yield* ledgerRows(sequence.id), 1)
    }))

  it.effect("refused, writing nothing: blocked preflight, changed after preflight, reviewed another version, no preflight", () =>
    Effect.gen(function* () {
      const { human, workspace } = yield* signedIn
      const blockers: ReadonlyArray<Finding> = [{ rule: "unsubscribe", message: "step 2 has no {{unsubscribe}} link" }]

      const blocked = yield* insertSequence(workspace.id)
      const blockedPreflight = yield* insertPreflight(workspace.id, blocked, { blockers })
      const b = yield* refusal(human, blocked.id, blocked.version)
      assert.deepInclude(b, { _tag: "ActivationRefused", reason: "preflight_blocked", preflightId: blockedPreflight })
      assert.deepStrictEqual(b._tag === "ActivationRefused" ? b.blockers : [], blockers)
      assert.include(b.message, "1 blocker")

      // an older clean preflight does not count: the latest one decides
      const older = yield* insertSequence(workspace.id)
      yield* insertPreflight(workspace.id, older, { checkedAt: new Date("2026-11-16T15:01:00Z") })
      yield* insertPreflight(workspace.id, older, { blockers, checkedAt: new Date("2026-11-16T15:02:00Z") })
      assert.deepInclude(yield* refusal(human, older.id, older.version), { reason: "preflight_blocked" })

      const stale = [
        { contentDigest: "c_other" },
        { recipientsDigest: "r_other" },
        { version: 2 }
      ]
      for (const preflightOf of stale) {
        const changed = yield* insertSequence(workspace.id)
        yield* insertPreflight(workspace.id, changed, preflightOf)
        const s = yield* refusal(human, changed.id, changed.version)
        assert.deepInclude(s, { _tag: "ActivationRefused", reason: "preflight_stale" }, JSON.stringify(preflightOf))
        assert.include(s.message, "changed after its preflight: run sequence_preflight again")
      }

      const reviewed = yield* insertSequence(workspace.id, { version: 4 })
      yield* insertPreflight(workspace.id, reviewed)
      const v = yield* refusal(human, reviewed.id, 3)
      assert.deepInclude(v, { _tag: "ActivationRefused", reason: "version_mismatch", version: 4 })
      assert.include(v.message, "changed since you reviewed it")

      const unchecked = yield* insertSequence(workspace.id)
      assert.deepInclude(yield* refusal(human, unchecked.id, unchecked.version), { reason: "no_preflight" })

      for (const id of [blocked.id, older.id, reviewed.id, unchecked.id]) {
        assert.lengthOf(yield* ledgerRows(id), 0)
        assert.strictEqual((yield* sequenceState(id))?.status, "draft")
      }
    }))

  it.effect("another workspace's sequence does not exist for this person (404), and its ledger is not listed", () =>
    Effect.gen(function* () {
      const { human } = yield* signedIn
      const other = yield* signedIn
      const theirs = yield* insertSequence(other.workspace.id)
      yield* insertPreflight(other.workspace.id, theirs)
      assert.deepInclude(yield* refusal(human, theirs.id, theirs.version), { _tag: "SequenceNotFound" })
      assert.deepInclude(yield* refusal(human, "sq_nope", 1), { _tag: "SequenceNotFound" })
      yield* activateAs(other.human, theirs.id, theirs.version)
      const listed = yield* Effect.flip(Effect.flatMap(Activation, (a) => a.authorizations(theirs.id, human.principal.workspaceId)))
      assert.strictEqual(listed._tag, "SequenceNotFound")
    }))

  it.effect("the ledger refuses UPDATE, DELETE and TRUNCATE in the database itself", () =>
    Effect.gen(function* () {
      const { human, workspace } = yield* signedIn
      const sequence = yield* insertSequence(workspace.id)
      yield* insertPreflight(workspace.id, sequence)
      const authorization = yield* activateAs(human, sequence.id, sequence.version)
      const sql = yield* SqlClient.SqlClient
      const statements = [
        ["UPDATE", `UPDATE sequence_authorizations SET user_email = 'mallory@evil.test' WHERE id = '${authorization.id}'`],
        ["DELETE", `DELETE FROM sequence_authorizations WHERE id = '${authorization.id}'`],
        ["TRUNCATE", "TRUNCATE sequence_authorizations"]
      ] as const
      for (const [operation, statement] of statements) {
        const refused = yield* Effect.flip(sql.unsafe(statement))
        assert.strictEqual(refused._tag, "SqlError", statement)
        assert.include(String(refused.cause), `sequence_authorizations is append-only: ${operation} refused`)
      }
      const rows = yield* ledgerRows(sequence.id)
      assert.deepStrictEqual(rows.map((r) => [r.id, r.userEmail]), [[authorization.id, "ana@acme.cl"]])
    }))
})

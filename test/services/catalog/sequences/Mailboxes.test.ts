import { assert, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Mailboxes } from "../../../../services/catalog/sequences/Mailboxes.ts"
import { issuePrincipal, ServicesTest } from "../../../support/TestLayers.ts"
import { authenticated } from "./Fixtures.ts"

const mailbox = authenticated

const BLANK = "a mailbox's display name must not be blank: recipients see it beside the address"
const CONTROL = "a mailbox's display name must not hold control characters (line breaks, tabs)"

layer(ServicesTest)("Mailboxes", (it) => {
  it.effect("a blank, over-long or control-character display name is MailboxNameInvalid saying why, and no mailbox is added", () =>
    Effect.gen(function* () {
      const mailboxes = yield* Mailboxes
      const { principal } = yield* issuePrincipal("free")
      const cases = [
        ["", BLANK],
        ["   ", BLANK],
        ["\t\n", BLANK],
        ["x".repeat(101), "a mailbox's display name must be at most 100 characters, not 101"],
        ["Ventas\r\nBcc: x@y.example", CONTROL],
        ["Ventas\tAcme", CONTROL],
        ["Ventas\u0085Acme", CONTROL],
        ["Ventas\u0000", CONTROL]
      ] as const
      for (const [displayName, says] of cases) {
        const refused = yield* mailboxes.add(principal.workspaceId, { ...mailbox, displayName }).pipe(Effect.flip)
        assert.strictEqual(refused._tag, "MailboxNameInvalid", JSON.stringify(displayName))
        assert.strictEqual(refused.message, says)
      }
      assert.deepStrictEqual(yield* mailboxes.list(principal.workspaceId), [])
    }))

  it.effect("a display name with spaces around it is stored trimmed", () =>
    Effect.gen(function* () {
      const mailboxes = yield* Mailboxes
      const { principal } = yield* issuePrincipal("free")
      const added = yield* mailboxes.add(principal.workspaceId, { ...mailbox, displayName: "  Ventas Acme\t" })
      assert.strictEqual(Option.map(added, (m) => m.displayName).pipe(Option.getOrNull), "Ventas Acme")
      assert.deepStrictEqual((yield* mailboxes.list(principal.workspaceId)).map((m) => m.displayName), ["Ventas Acme"])
    }))
})

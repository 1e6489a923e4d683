import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { ApiKeyId, ConnectionId, isConnectionId, isSequenceId, isSessionId, RequestId, WorkspaceId } from "../../schema/Ids.ts"
import { newIdNow } from "../../services/Ids.ts"

// Every id brein makes, as a schema and as the edge's check, held to one rule: prefix, `_`, letters or digits, at most 64.
const kinds = [
  { prefix: "ws", is: Schema.is(WorkspaceId) },
  { prefix: "conn", is: Schema.is(ConnectionId) },
  { prefix: "conn", is: isConnectionId },
  { prefix: "key", is: Schema.is(ApiKeyId) },
  { prefix: "req", is: Schema.is(RequestId) },
  { prefix: "ses", is: isSessionId },
  { prefix: "sq", is: isSequenceId }
]

describe("ids", () => {
  it("every kind takes the ids brein makes with its prefix, and at most 64 characters of them", () => {
    for (const { is, prefix } of kinds) {
      assert.isTrue(is(newIdNow(prefix)), prefix)
      assert.isTrue(is(`${prefix}_A1`), prefix)
      const longest = `${prefix}_${"a".repeat(64 - prefix.length - 1)}`
      assert.isTrue(is(longest), `${prefix}: 64 characters`)
      assert.isFalse(is(`${longest}a`), `${prefix}: 65 characters`)
    }
  })

  it("every kind refuses any other text alike: a NUL byte, another prefix, no body, a sign, a name", () => {
    for (const { is, prefix } of kinds) {
      const other = prefix === "ws" ? "conn" : "ws"
      for (
        const bad of [
          "\u0000",
          `${prefix}_a\u0000b`,
          `${newIdNow(prefix)}\u0000`,
          `${prefix}_`,
          prefix,
          `${other}_abc`,
          `${prefix}_a-b`,
          `${prefix}_a b`,
          "acme",
          "",
          7,
          null
        ]
      ) {
        assert.isFalse(is(bad), `${prefix}: ${JSON.stringify(bad)}`)
      }
    }
  })
})

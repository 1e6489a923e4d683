import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { SequenceDefinition } from "../../../../schema/catalog/Sequences.ts"
import type { Principal } from "../../../../schema/Principal.ts"
import { DirectorySeed } from "../../../../services/catalog/empresas/DirectorySeed.ts"
import { Owned } from "../../../../services/catalog/empresas/Owned.ts"
import { Mailboxes, type NewMailbox } from "../../../../services/catalog/sequences/Mailboxes.ts"
import { Executor } from "../../../../services/pipeline/Executor.ts"
import { refused } from "../../../support/Refused.ts"
import { callContext, issuePrincipal, ServicesTest } from "../../../support/TestLayers.ts"

export const Seeded = Layer.effectDiscard(Effect.flatMap(DirectorySeed, (seed) => seed.load({ seed: "sequences-test", companies: 200 })))
  .pipe(
    Layer.provideMerge(ServicesTest)
  )

export const call = (principal: Principal, toolId: string, input: unknown) =>
  Effect.flatMap(Executor, (executor) => executor.call(toolId, input, callContext(principal, { surface: "http" })))

export const as = <A, I>(schema: Schema.Schema<A, I>) => (response: { readonly data: unknown }) =>
  Schema.decodeUnknownSync(schema)(response.data)

export const failure = (principal: Principal, toolId: string, input: unknown) =>
  Effect.map(refused(call(principal, toolId, input), toolId), (error) => ({
    tag: error._tag,
    paths: error._tag === "InvalidInput" ? error.issues.map((i) => i.path) : [],
    reason: "reason" in error ? String(error.reason) : "",
    kind: "kind" in error ? String(error.kind) : "",
    message: error.message
  }))

/** A sender mailbox that passes every domain check (SPF, DKIM, DMARC). */
export const authenticated: NewMailbox = {
  email: "ventas@acme.example",
  displayName: "Ventas Acme",
  dailyCap: 400,
  minSpacingSeconds: 30,
  spf: true,
  dkim: true,
  dmarc: true
}

/** A workspace with a sender mailbox. */
export const workspaceWithMailbox = (mailbox: Partial<NewMailbox> = {}) =>
  Effect.gen(function* () {
    const { principal } = yield* issuePrincipal("free")
    const added = yield* (yield* Mailboxes).add(principal.workspaceId, { ...authenticated, ...mailbox })
    return { principal, mailbox: Option.getOrThrow(added) }
  })

/** People of the directory with an email on file, of a country, in id order. */
export const peopleWithEmail = (country: "CL" | "MX", n: number, offset = 0) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: string; email: string }>`SELECT id, email FROM people
      WHERE email IS NOT NULL AND country = ${country} ORDER BY id LIMIT ${n} OFFSET ${offset}`
    return rows
  })

export const reveal = (principal: Principal, ids: ReadonlyArray<string>) =>
  Effect.flatMap(Owned, (owned) => owned.reveal(principal, ids, "req_test"))

/** A definition every preflight rule passes (decoded). */
export const goodDefinition = (mailboxId: string, name = "Prospección Q4") =>
  Schema.decodeUnknownSync(SequenceDefinition)({
    name,
    mailbox_id: mailboxId,
    steps: [
      {
        id: "s1",
        delay: 0,
        delay_unit: "days",
        subject: "{Hola|Buen día} {{first_name}}",
        body: "Hola {{first_name}},\n\nVi que {{company}} está creciendo en {{region}}. ¿Conversamos?\n\n{{unsubscribe}}"
      },
      {
        id: "s2",
        delay: 3,
        delay_unit: "days",
        subject: "Re: una idea para {{company}}",
        body: "{{first_name|Hola}}, retomo mi correo anterior.\n\n{{unsubscribe}}",
        variants: [{ id: "b", subject: "Otra idea para {{company}}", body: "¿Tiene sentido, {{first_name}}?\n\n{{unsubscribe}}" }]
      }
    ],
    settings: {
      sender_identity: "Acme SpA",
      physical_address: "Av. Apoquindo 3000, Las Condes, Santiago",
      privacy_notice_url: "https://acme.example/privacidad",
      daily_cap: 200,
      spacing_seconds: 60,
      window: { start_hour: 9, end_hour: 18, timezone: "America/Santiago" }
    }
  })

/** The same, encoded as a tool takes it. */
export const definitionFor = (mailboxId: string, name = "Prospección Q4") =>
  Schema.encodeSync(SequenceDefinition)(goodDefinition(mailboxId, name))

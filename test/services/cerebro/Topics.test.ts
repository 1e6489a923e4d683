import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { waitUntil } from "../../support/Eventually.ts"
import { issuePrincipal, ServicesTest } from "../../support/TestLayers.ts"
import { call, create, dataOf, failure, topicOf } from "./Support.ts"

const countRows = (table: "topics" | "topic_versions", id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)} WHERE ${sql(table === "topics" ? "id" : "topic_id")} = ${id}`
  ).pipe(
    Effect.map((rows) => rows[0]?.n ?? 0)
  )

layer(ServicesTest)("Cerebro topics", (it) => {
  it.effect("context_create keeps a topic at version 1 with its ref, author and next action; context_get reads it", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const created = yield* call(principal, "context_create", {
        area: "clientes",
        title: "  Cuenta Falabella  ",
        body: "## Contexto\nCompran en **marzo**; hablar con la gerencia de compras.",
        tags: ["retail", "cuenta-clave"],
        pattern: "{{empresa}} × Brein: propuesta para {{ cargo }}"
      })
      const topic = topicOf(created)
      assert.match(topic.id, /^tp_/)
      assert.strictEqual(topic.title, "Cuenta Falabella")
      assert.strictEqual(topic.version, 1)
      assert.deepStrictEqual(topic.tags, ["retail", "cuenta-clave"])
      assert.deepStrictEqual(topic.pattern_variables, ["empresa", "cargo"])
      assert.strictEqual(topic.created_by, principal.keyId)
      assert.strictEqual(dataOf(created)["ref"], `topic:${topic.id}@v1`)
      assert.deepStrictEqual(created.next_actions?.map((a) => [a.tool, a.input]), [["context_get", { id: topic.id }]])
      assert.strictEqual(created.meta.audit_status, "recorded")

      const got = yield* call(principal, "context_get", { id: topic.id })
      assert.deepStrictEqual(topicOf(got), topic)
      assert.strictEqual(dataOf(got)["ref"], `topic:${topic.id}@v1`)
      assert.strictEqual(dataOf(got)["latest_version"], 1)
    }))

  it.effect("context_get of an unknown id, or another workspace's topic, is TopicNotFound; a malformed id is InvalidInput", () =>
    Effect.gen(function* () {
      const mine = yield* issuePrincipal("free")
      const other = yield* issuePrincipal("free")
      const topic = yield* create(mine.principal, { title: "Nombres de oportunidades" })
      const theirs = yield* failure(other.principal, "context_get", { id: topic.id })
      assert.strictEqual(theirs._tag, "TopicNotFound")
      const unknown = yield* failure(mine.principal, "context_get", { id: "tp_doesnotexist" })
      assert.strictEqual(unknown._tag, "TopicNotFound")
      const malformed = yield* failure(mine.principal, "context_get", { id: "topic-1" })
      assert.strictEqual(malformed._tag, "InvalidInput")
      if (malformed._tag === "InvalidInput") assert.deepStrictEqual(malformed.issues.map((i) => i.path), ["input.id"])
      const past = yield* failure(mine.principal, "context_get", { id: topic.id, version: 2 })
      assert.strictEqual(past._tag, "TopicNotFound")
      if (past._tag === "TopicNotFound") assert.include(past.message, "versions are 1 to 1")
    }))

  it.effect("a version past what the database's integer column holds is InvalidInput naming the range, on context_get and context_update", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const topic = yield* create(principal, { title: "Versiones enormes" })
      for (const [tool, change] of [["context_get", {}], ["context_update", { body: "Otra cosa." }]] as const) {
        for (const version of [2_147_483_648, Number.MAX_SAFE_INTEGER, 1e300]) {
          const refusal = yield* failure(principal, tool, { id: topic.id, version, ...change })
          assert.strictEqual(refusal._tag, "InvalidInput", `${tool} ${version}`)
          if (refusal._tag === "InvalidInput") {
            assert.deepStrictEqual(refusal.issues.map((i) => i.path), ["input.version"])
            assert.include(refusal.message, "input.version must be between 1 and 2,147,483,647, got ")
          }
        }
      }
      assert.strictEqual(yield* countRows("topic_versions", topic.id), 1)
    }))

  it.effect("context_update changes only the given fields, adds one to the version and keeps every earlier version", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const first = yield* create(principal, { title: "Asunto de correos", body: "Primera versión.", tags: ["correo"] })
      const updated = yield* call(principal, "context_update", { id: first.id, version: 1, body: "Segunda versión." })
      const second = topicOf(updated)
      assert.strictEqual(second.version, 2)
      assert.strictEqual(second.body, "Segunda versión.")
      assert.strictEqual(second.title, "Asunto de correos")
      assert.deepStrictEqual(second.tags, ["correo"])
      assert.strictEqual(dataOf(updated)["ref"], `topic:${first.id}@v2`)
      assert.strictEqual(dataOf(updated)["previous_version"], 1)
      assert.deepStrictEqual(updated.next_actions?.map((a) => a.input), [{ id: first.id, version: 1 }])

      const third = topicOf(yield* call(principal, "context_update", { id: first.id, version: 2, tags: [], pattern: "Hola {{nombre}}" }))
      assert.strictEqual(third.version, 3)
      assert.deepStrictEqual(third.tags, [])
      assert.strictEqual(third.pattern, "Hola {{nombre}}")
      const cleared = topicOf(yield* call(principal, "context_update", { id: first.id, version: 3, pattern: null }))
      assert.strictEqual(cleared.pattern, null)

      const v1 = yield* call(principal, "context_get", { id: first.id, version: 1 })
      assert.strictEqual(topicOf(v1).body, "Primera versión.")
      assert.strictEqual(dataOf(v1)["ref"], `topic:${first.id}@v1`)
      assert.strictEqual(dataOf(v1)["latest_version"], 4)
      assert.include(v1.hint ?? "", "now at version 4")
      assert.strictEqual(topicOf(yield* call(principal, "context_get", { id: first.id, version: 3 })).pattern, "Hola {{nombre}}")
      assert.strictEqual(yield* countRows("topic_versions", first.id), 4)

      const sql = yield* SqlClient.SqlClient
      const rewrite = yield* Effect.flip(sql`UPDATE topic_versions SET body = 'otra cosa' WHERE topic_id = ${first.id}`)
      assert.include(String(rewrite.cause), "append-only")
    }))

  it.effect("an update to what the topic already says answers changed: false and makes no new version", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const topic = yield* create(principal, { title: "Horarios de llamada", body: "De 10 a 12.", tags: ["llamadas", "horario"] })
      const sameChanges = [
        { body: "De 10 a 12." },
        { title: "Horarios de llamada", tags: ["llamadas", "horario"], pattern: null },
        { tags: ["llamadas", "llamadas", "horario", "llamadas"] } // a tag repeated is kept once
      ]
      for (const same of sameChanges) {
        const answer = yield* call(principal, "context_update", { id: topic.id, version: 1, ...same })
        assert.strictEqual(dataOf(answer)["changed"], false)
        assert.strictEqual(topicOf(answer).version, 1)
        assert.strictEqual(dataOf(answer)["ref"], `topic:${topic.id}@v1`)
        assert.include(answer.hint ?? "", "nothing changed")
      }
      assert.strictEqual(yield* countRows("topic_versions", topic.id), 1)
      const changed = yield* call(principal, "context_update", { id: topic.id, version: 1, tags: ["horario", "llamadas"] })
      assert.deepStrictEqual([dataOf(changed)["changed"], topicOf(changed).version], [true, 2])
    }))

  it.effect("a topic created with a tag repeated keeps it once", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const topic = yield* create(principal, { title: "Etiquetas repetidas", body: "x", tags: ["ventas", "retail", "ventas"] })
      assert.deepStrictEqual(topic.tags, ["ventas", "retail"])
    }))

  it.effect("an update naming a version the topic never had is TopicConflict unknown_version and writes nothing", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const topic = yield* create(principal, { title: "Versión inexistente", body: "Original." })
      const ahead = yield* failure(principal, "context_update", { id: topic.id, version: 5, body: "Otro." })
      assert.deepStrictEqual(ahead._tag === "TopicConflict" ? [ahead.reason, ahead.currentVersion] : [ahead._tag], ["unknown_version", 1])
      assert.include(ahead.message, "never had version 5")
      assert.strictEqual(yield* countRows("topic_versions", topic.id), 1)
    }))

  it.effect("an update based on a stale version is TopicConflict and writes nothing", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const topic = yield* create(principal, { title: "Objeciones de precio", body: "Original." })
      yield* call(principal, "context_update", { id: topic.id, version: 1, body: "Cambio de otra persona." })
      const stale = yield* failure(principal, "context_update", { id: topic.id, version: 1, body: "Mi cambio." })
      assert.strictEqual(stale._tag, "TopicConflict")
      if (stale._tag !== "TopicConflict") return
      assert.strictEqual(stale.reason, "stale_version")
      assert.strictEqual(stale.currentVersion, 2)
      assert.deepStrictEqual(stale.next_actions?.map((a) => "tool" in a ? a.tool : a.path), ["context_get"])
      const now = topicOf(yield* call(principal, "context_get", { id: topic.id }))
      assert.deepStrictEqual([now.version, now.body], [2, "Cambio de otra persona."])
      assert.strictEqual(yield* countRows("topic_versions", topic.id), 2)
    }))

  it.effect("an update of another workspace's topic is TopicNotFound; an update that changes nothing is InvalidInput", () =>
    Effect.gen(function* () {
      const mine = yield* issuePrincipal("free")
      const other = yield* issuePrincipal("free")
      const topic = yield* create(mine.principal, { title: "Territorios" })
      const theirs = yield* failure(other.principal, "context_update", { id: topic.id, version: 1, body: "Intruso." })
      assert.strictEqual(theirs._tag, "TopicNotFound")
      const nothing = yield* failure(mine.principal, "context_update", { id: topic.id, version: 1 })
      assert.strictEqual(nothing._tag, "InvalidInput")
      if (nothing._tag === "InvalidInput") assert.include(nothing.message, "nothing to change")
      assert.strictEqual(topicOf(yield* call(mine.principal, "context_get", { id: topic.id })).body, "Cómo trabajamos.")
    }))

  it.effect("the same title in the same area, ignoring case, accents and spaces, is refused with the existing id", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const first = yield* create(principal, { area: "competencia", title: "Comparación con Apollo" })
      const again = yield* failure(principal, "context_create", {
        area: "competencia",
        title: "  COMPARACION   con apollo ",
        body: "Otra nota."
      })
      assert.strictEqual(again._tag, "TopicConflict")
      if (again._tag !== "TopicConflict") return
      assert.strictEqual(again.reason, "duplicate_title")
      assert.strictEqual(again.topicId, first.id)
      assert.include(again.hint ?? "", "context_update")
      assert.include(again.hint ?? "", first.id)
      assert.deepStrictEqual(again.next_actions?.map((a) => "tool" in a ? [a.tool, a.input] : []), [
        ["context_get", { id: first.id }],
        ["context_update", { id: first.id, version: 1 }]
      ])
      // Another area, or another workspace, may hold the same title.
      yield* create(principal, { area: "mercado", title: "Comparación con Apollo" })
      yield* create((yield* issuePrincipal("free")).principal, { area: "competencia", title: "Comparación con Apollo" })
      // Renaming a topic onto another's title is refused too, and writes nothing.
      const other = yield* create(principal, { area: "competencia", title: "Comparación con HubSpot" })
      const rename = yield* failure(principal, "context_update", { id: other.id, version: 1, title: "comparación con APOLLO" })
      assert.strictEqual(rename._tag, "TopicConflict")
      assert.strictEqual(topicOf(yield* call(principal, "context_get", { id: other.id })).version, 1)
      assert.strictEqual(yield* countRows("topics", first.id), 1)
    }))
  it.effect("two writers at once: one update of a version wins and the other is stale; one of two equal titles is kept", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const topic = yield* create(principal, { title: "Carrera de escritores", body: "Inicio." })
      const updates = yield* Effect.all(
        ["Primero.", "Segundo."].map((body) => Effect.either(call(principal, "context_update", { id: topic.id, version: 1, body }))),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(updates.map((u) => u._tag).sort(), ["Left", "Right"])
      for (const u of updates) if (u._tag === "Left") assert.strictEqual(u.left._tag, "TopicConflict")
      assert.strictEqual(yield* countRows("topic_versions", topic.id), 2)

      const creates = yield* Effect.all(
        [1, 2].map(() => Effect.either(call(principal, "context_create", { area: "equipo", title: "Turnos de guardia", body: "Nota." }))),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(creates.map((c) => c._tag).sort(), ["Left", "Right"])
      for (const c of creates) {
        if (c._tag === "Left") {
          assert.strictEqual(c.left._tag, "TopicConflict")
          if (c.left._tag === "TopicConflict") assert.strictEqual(c.left.reason, "duplicate_title")
        }
      }
    }))
})

// A live clock: the test waits (by polls, not by time) for the second writer to block on the first one's title.
layer(ServicesTest, { excludeTestServices: true })("Cerebro topics, racing", (it) => {
  it.effect("a create that loses the race for a title to a writer not yet committed is the same duplicate_title conflict", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const sql = yield* SqlClient.SqlClient
      const held = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const holder = yield* sql.withTransaction(Effect.gen(function* () {
        yield* sql`INSERT INTO topics (id, workspace_id, area, title, title_key, body, tags, pattern, search_text, version,
            created_at, updated_at, created_by, updated_by)
          VALUES ('tp_first', ${principal.workspaceId}, 'equipo', 'Turnos de guardia', 'turnos de guardia', 'Nota.', '{}', NULL,
            'turnos de guardia nota.', 1, now(), now(), 'test', 'test')`
        yield* Deferred.succeed(held, undefined)
        yield* Deferred.await(release)
      })).pipe(Effect.fork)
      yield* Deferred.await(held)
      const writer = yield* Effect.fork(
        Effect.either(call(principal, "context_create", { area: "equipo", title: "Turnos de Guardia", body: "Otra." }))
      )
      yield* waitUntil(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        (rows) => (rows[0]?.n ?? 0) > 0,
        { what: "the second writer waiting for the first one's title" }
      )
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      const lost = yield* Fiber.join(writer)
      assert.strictEqual(lost._tag, "Left")
      if (lost._tag !== "Left" || lost.left._tag !== "TopicConflict") return assert.fail(`expected a TopicConflict, got ${String(lost)}`)
      assert.deepStrictEqual([lost.left.reason, lost.left.topicId], ["duplicate_title", "tp_first"])
    }))
})

import { Effect } from "effect"
import {
  CreateInput,
  CreateOutput,
  GetInput,
  GetOutput,
  RetrieveInput,
  RetrieveOutput,
  topicRef,
  UpdateInput,
  UpdateOutput
} from "../../schema/catalog/Cerebro.ts"
import type { Stage } from "../../schema/tools/Definition.ts"
import { newId } from "../Ids.ts"
import { catalog } from "../tools/Source.ts"
import { action, type CallInfo } from "../tools/Tool.ts"
import { snippetOf } from "./Snippet.ts"
import { type Author, Topics } from "./Topics.ts"

const FAMILY = "cerebro"
const ALL_STAGES: ReadonlyArray<Stage> = ["buscando", "prospectando", "con_lista"]
const reads = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const

const authorOf = (ctx: CallInfo): Author => ({
  workspaceId: ctx.principal.workspaceId,
  by: ctx.principal.keyId ?? `in-process:${ctx.surface}`
})

export const contextRetrieve = action({
  id: "context_retrieve",
  family: FAMILY,
  label: "Buscar en Cerebro",
  description: "Searches this workspace's topics (the team's memory) by words in titles, tags and bodies, ignoring case and accents; " +
    "filter by area and tags. Answers the best ranked with a snippet each and the total; read one in full with context_get.",
  plan: "free",
  hints: reads,
  cost: { kind: "free" },
  level: 0,
  stages: ALL_STAGES,
  input: RetrieveInput,
  output: RetrieveOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const found = yield* (yield* Topics).retrieve(ctx.principal.workspaceId, input)
      const searchId = yield* newId("srch")
      const [first] = found.topics
      if (first === undefined) {
        yield* ctx.annotate({
          hint:
            "No topic matches. Try fewer or other words, or drop the area and tag filters; what the team learns can be kept with context_create."
        })
      } else {
        yield* ctx.annotate({
          next_actions: [{ tool: "context_get", reason: "read the best match in full", input: { id: first.id } }],
          ...(found.total > found.topics.length
            ? { hint: `${found.total} topics match and ${found.topics.length} are shown: narrow the search or raise limit (at most 50)` }
            : {})
        })
      }
      return {
        ref: `cerebro.search:${searchId}`,
        search_id: searchId,
        total: found.total,
        results: found.topics.map((t) => ({
          ref: topicRef(t.id, t.version),
          id: t.id,
          area: t.area,
          title: t.title,
          tags: t.tags,
          snippet: snippetOf(t.body, found.terms),
          version: t.version,
          updated_at: t.updated_at
        }))
      }
    })
})

export const contextGet = action({
  id: "context_get",
  family: FAMILY,
  label: "Leer tema de Cerebro",
  description: "One topic of this workspace in full (body, tags, pattern, version, who wrote it), or a past version of it, with its ref.",
  plan: "free",
  hints: reads,
  cost: { kind: "free" },
  level: 0,
  stages: ALL_STAGES,
  input: GetInput,
  output: GetOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const { topic, latest } = yield* (yield* Topics).get(ctx.principal.workspaceId, input.id, input.version)
      if (topic.version < latest) {
        yield* ctx.annotate({
          hint: `This is version ${topic.version}; the topic is now at version ${latest}`,
          next_actions: [{ tool: "context_get", reason: "read the current version", input: { id: topic.id } }]
        })
      }
      return { ref: topicRef(topic.id, topic.version), topic, latest_version: latest }
    })
})

export const contextCreate = action({
  id: "context_create",
  family: FAMILY,
  label: "Guardar tema en Cerebro",
  description: "Keeps something the team learned as a topic of this workspace, known to everyone at once. Write rules: area " +
    "required; title and body non-empty and bounded; a pattern must compile; no secrets (API keys, passwords, tokens, " +
    "private keys, card numbers); one title per area (ignoring case and accents): to add to an existing topic use context_update.",
  plan: "free",
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  cost: { kind: "free" },
  level: 1,
  stages: [],
  input: CreateInput,
  output: CreateOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const topic = yield* (yield* Topics).create(authorOf(ctx), input)
      yield* ctx.annotate({
        next_actions: [{ tool: "context_get", reason: "read the topic as stored", input: { id: topic.id } }]
      })
      return { ref: topicRef(topic.id, topic.version), topic }
    })
})

export const contextUpdate = action({
  id: "context_update",
  family: FAMILY,
  label: "Actualizar tema de Cerebro",
  description: "Changes a topic of this workspace: give its id, the version the change is based on, and only the fields " +
    "to change. A stale version is refused (nothing written); every earlier version is kept and readable with context_get. " +
    "A change to what the topic already says answers changed: false and makes no new version. " +
    "The same write rules as context_create apply.",
  plan: "free",
  // Repeating the same call changes nothing more: after a change the version it names is stale and it is refused; a change to
  // what the topic already says answers changed: false.
  hints: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  cost: { kind: "free" },
  level: 1,
  stages: [],
  input: UpdateInput,
  output: UpdateOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const { changed, previous, topic } = yield* (yield* Topics).update(authorOf(ctx), input)
      yield* ctx.annotate(
        changed
          ? {
            next_actions: [{
              tool: "context_get",
              reason: "read the version this change replaced",
              input: { id: topic.id, version: previous }
            }]
          }
          : { hint: `The topic already says this: nothing changed and it is still at version ${topic.version}` }
      )
      return { ref: topicRef(topic.id, topic.version), topic, changed, previous_version: previous }
    })
})

export const CerebroCatalog = catalog({
  family: FAMILY,
  tools: [contextRetrieve, contextGet, contextCreate, contextUpdate]
})

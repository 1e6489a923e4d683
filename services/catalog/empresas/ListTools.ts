import { Effect, Option } from "effect"
import {
  type CompanySummary,
  ListGetInput,
  ListGetOutput,
  ListSaveInput,
  ListSaveOutput,
  type PersonSummary
} from "../../../schema/catalog/Empresas.ts"
import { RecordNotFound } from "../../../schema/Errors.ts"
import { action } from "../../tools/Tool.ts"
import { Directory, directoryLoaded } from "./Directory.ts"
import { Lists } from "./Lists.ts"
import { openListCursor, sealListCursor } from "./SearchCursor.ts"
import { FAMILY, STAGES } from "./SearchTools.ts"

/** A list version's ref, `list:<id>@<updated_at>`: what list_save answers, list_get cites and its cursor is of. */
const listRef = (list: { readonly id: string; readonly updatedAt: Date }) => `list:${list.id}@${list.updatedAt.toISOString()}`

const common = { family: FAMILY, plan: "free", cost: { kind: "free" }, level: 0, stages: STAGES } as const

export const listSave = action({
  ...common,
  id: "list_save",
  label: "Guardar lista",
  description:
    "Create or replace one of the workspace's named lists of companies or people (up to 1,000 ids; duplicates dropped, order kept). Every id must exist; otherwise nothing is saved and the previous list stays as it was.",
  hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: ListSaveInput,
  output: ListSaveOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const directory = yield* Directory
      yield* directory.loaded()
      const ids = [...new Set(input.ids)]
      const missing = yield* directory.missing(input.kind, ids)
      if (missing.length > 0) {
        return yield* RecordNotFound.of(input.kind === "companies" ? "company" : "person", missing, {
          hint: "Nothing was saved. Drop these ids or take them from a fresh search."
        })
      }
      const saved = yield* (yield* Lists).save(ctx.principal.workspaceId, input.name, input.kind, ids)
      yield* ctx.annotate({ next_actions: [{ tool: "list_get", reason: "read the list back", input: { list_id: saved.id } }] })
      return {
        list_id: saved.id,
        ref: listRef(saved),
        name: input.name,
        kind: input.kind,
        items: ids.length,
        duplicates_removed: input.ids.length - ids.length,
        replaced: saved.replaced,
        updated_at: saved.updatedAt.toISOString()
      }
    })
})

export const listGet = action({
  ...common,
  id: "list_get",
  label: "Ver lista",
  description: "One of the workspace's lists by name or list_id, its items resolved to companies or people (no contact data), in pages.",
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: ListGetInput,
  output: ListGetOutput,
  // On one snapshot, so that a page's items are of the version its ref, kind and total describe; its cursor
  // is of that version, and refused once the list is saved again (its pages would mix two versions).
  handler: (input, ctx) =>
    Effect.flatMap(Lists, (lists) =>
      lists.snapshot(Effect.gen(function* () {
        yield* directoryLoaded
        const by = input.list_id === undefined ? { name: input.name ?? "" } : { id: input.list_id }
        const found = yield* lists.find(ctx.principal.workspaceId, by)
        if (Option.isNone(found)) {
          return yield* RecordNotFound.of("list", [input.list_id ?? input.name ?? ""], {
            hint: "Lists belong to a workspace: this one has no list by that name or id. Save one with list_save."
          })
        }
        const list = found.value
        const version = listRef(list)
        const cursorOf = { listId: list.id, version, workspace: ctx.principal.workspaceId }
        const at = yield* openListCursor(input.cursor, cursorOf)
        const rows = yield* lists.items(list.id, at ?? 0, input.limit)
        const page = rows.slice(0, input.limit)
        const directory = yield* Directory
        const ids = page.map((r) => r.itemId)
        const companies = list.kind === "companies" ? yield* directory.companiesById(ids) : new Map<string, CompanySummary>()
        const people = list.kind === "people" ? yield* directory.peopleById(ids) : new Map<string, PersonSummary>()
        const items = page.map((r) => {
          const company = companies.get(r.itemId)
          const person = people.get(r.itemId)
          return {
            position: r.position,
            id: r.itemId,
            found: company !== undefined || person !== undefined,
            ...(company === undefined ? {} : { company }),
            ...(person === undefined ? {} : { person })
          }
        })
        const last = rows.length > input.limit ? page[page.length - 1]?.position : undefined
        return {
          list_id: list.id,
          ref: version,
          name: list.name,
          kind: list.kind,
          total: list.total,
          updated_at: list.updatedAt.toISOString(),
          items,
          cursor: yield* sealListCursor(cursorOf, last)
        }
      })))
})

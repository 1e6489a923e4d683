import { Data, Either, Schema } from "effect"
import { Descriptor, MAX_VISIBLE_TOOLS, STAGES, ToolIdShape } from "../../schema/tools/Definition.ts"
import type { Source } from "./Source.ts"
import type { Access } from "./Tool.ts"

export interface Violation {
  readonly tool: string
  readonly rule: string
  readonly message: string
}

export class RegistryInvalid extends Data.TaggedError("RegistryInvalid")<{
  readonly violations: ReadonlyArray<Violation>
}> {
  override get message() {
    return `the tool registry is invalid:\n${this.violations.map((v) => `  - ${v.tool} [${v.rule}]: ${v.message}`).join("\n")}`
  }
}

export interface Entry {
  readonly descriptor: Descriptor
  readonly source: Source
  readonly access: Access
}

const SYNC_SUFFIX = "conexion.sincronizar"
const isDescriptor = Schema.decodeUnknownEither(Descriptor)

const perTool = (entry: Entry): ReadonlyArray<Omit<Violation, "tool">> => {
  const d = entry.descriptor
  const out: Array<Omit<Violation, "tool">> = []
  const add = (rule: string, message: string) => out.push({ rule, message })
  const decoded = isDescriptor(d)
  if (Either.isLeft(decoded)) add("definition", `the definition does not match its schema: ${decoded.left.message}`)
  for (const stage of d.stages) {
    if (!STAGES.includes(stage)) add("known_stage", `unknown stage "${stage}" (known: ${STAGES.join(", ")})`)
  }
  if (d.plane === "read" && d.plan !== "paid") add("read_requires_paid", "a read-plane tool must be on a paid plan")
  if (d.plane === "read" && entry.source.kind === "connector" && entry.source.plan !== "paid") {
    add("read_requires_paid", `connector "${entry.source.id}" is free and cannot declare a read-plane tool`)
  }
  const needsConnection = entry.source.kind === "connector" && entry.source.requiresConnection
  if (needsConnection && entry.access === "open") {
    add("connection_typed", `connector "${d.connector ?? ""}" requires a connection: its tools are defined with connectedAction or read`)
  }
  if (!needsConnection && entry.access !== "open") {
    add("connection_typed", "this tool takes a connection its source does not require")
  }
  if (d.hints.readOnly && d.hints.destructive) add("readonly_not_destructive", "a readOnly tool cannot be destructive")
  if (d.cost.kind === "credits" && (d.level !== 2 || !d.quoted)) {
    add("credits_gate", "a credits tool needs approval level 2 and a quote")
  }
  if (d.cost.kind === "credits" && (d.hints.readOnly || entry.access !== "open")) {
    add("credits_commit", "a credits tool writes its charge with its effects (not readOnly) and takes no connection")
  }
  if (entry.source.kind === "connector") {
    if (!ToolIdShape.connector.test(d.id) || !d.id.startsWith(`${entry.source.id}.`)) {
      add("id_shape", `connector tool ids look like ${entry.source.id}.recurso.verbo`)
    }
  } else {
    if (!ToolIdShape.catalog.test(d.id)) add("id_shape", "catalog tool ids are snake_case")
    if (d.plane === "read") add("catalog_is_action", "Brein catalog tools are action plane (they sync nothing external)")
  }
  return out
}

const twoClasses = (source: Source, entries: ReadonlyArray<Entry>): ReadonlyArray<Violation> => {
  if (source.kind !== "connector") return []
  const mine = entries.filter((e) => e.source === source).map((e) => e.descriptor)
  const hasReadPlane = mine.some((d) => d.plane === "read")
  const out: Array<Violation> = []
  for (const d of mine) {
    const isSync = d.id === `${source.id}.${SYNC_SUFFIX}`
    const isConsultar = d.id.endsWith(".consultar")
    if (d.plane === "read" && !isSync) {
      out.push({ tool: d.id, rule: "two_classes", message: `the only read-plane tool of a connector is ${source.id}.${SYNC_SUFFIX}` })
    }
    if (isSync && d.plane !== "read") {
      out.push({ tool: d.id, rule: "two_classes", message: "conexion.sincronizar must be plane read" })
    }
    if (hasReadPlane && d.plane === "action" && !isConsultar) {
      out.push({
        tool: d.id,
        rule: "two_classes",
        message:
          "a connector with a read plane has only conexion.sincronizar and <recurso>.consultar tools; a live query without persisting is not allowed"
      })
    }
    if (isConsultar && !hasReadPlane) {
      out.push({
        tool: d.id,
        rule: "two_classes",
        message: ".consultar means 'read the cache': only connectors with a read plane may declare it"
      })
    }
    if (isConsultar && d.scope === null) {
      out.push({ tool: d.id, rule: "consultar_scope", message: "a .consultar tool must declare the scope of persisted data it reads" })
    }
  }
  return out
}

const belts = (entries: ReadonlyArray<Entry>): ReadonlyArray<Violation> =>
  STAGES.flatMap((stage) => {
    const onBelt = entries.filter((e) => e.descriptor.stages.includes(stage))
    return onBelt.length > MAX_VISIBLE_TOOLS
      ? [{
        tool: onBelt.map((e) => e.descriptor.id).join(", "),
        rule: "belt_size",
        message: `stage "${stage}" would show ${onBelt.length} tools (max ${MAX_VISIBLE_TOOLS})`
      }]
      : []
  })

const duplicates = (entries: ReadonlyArray<Entry>): ReadonlyArray<Violation> => {
  const seen = new Set<string>()
  const out: Array<Violation> = []
  for (const { descriptor } of entries) {
    if (seen.has(descriptor.id)) out.push({ tool: descriptor.id, rule: "unique_id", message: "two tools share this id" })
    seen.add(descriptor.id)
  }
  return out
}

const connectorIds = (sources: ReadonlyArray<Source>): ReadonlyArray<Violation> =>
  sources.flatMap((s) =>
    s.kind === "connector" && !/^[a-z][a-z0-9_]*$/.test(s.id)
      ? [{ tool: s.id, rule: "id_shape", message: "connector ids are lower-case words" }]
      : []
  )

export const check = (sources: ReadonlyArray<Source>, entries: ReadonlyArray<Entry>): Either.Either<void, RegistryInvalid> => {
  const violations = [
    ...connectorIds(sources),
    ...entries.flatMap((e) => perTool(e).map((v) => ({ tool: e.descriptor.id, ...v }))),
    ...duplicates(entries),
    ...sources.flatMap((s) => twoClasses(s, entries)),
    ...belts(entries)
  ]
  return violations.length === 0 ? Either.void : Either.left(new RegistryInvalid({ violations }))
}

import { Effect, ParseResult, Schema, SchemaAST } from "effect"
import { InvalidInput, ToolFailed } from "../../schema/Errors.ts"
import { issuesOf, MAX_ISSUES, summary } from "../../schema/Issues.ts"
import type { Cost, Hints, Level, Plan, Plane, Stage } from "../../schema/tools/Definition.ts"
import type { EnvelopeExtras } from "../../schema/tools/Envelope.ts"
import type { HandlerError } from "../../schema/tools/ToolError.ts"
import type { ConnectionId } from "../../schema/Ids.ts"
import type { CallContext, ProgressUpdate } from "../../schema/Principal.ts"
import type { Persist, PersistApi } from "../pipeline/Persist.ts"

export interface CallInfo extends Required<Pick<CallContext, "surface" | "principal">> {
  readonly requestId: string
  readonly connectionId: ConnectionId | null
  /** Adds instructions next to the data (warnings, next actions, a hint). */
  readonly annotate: (extras: EnvelopeExtras) => void
  /** Reports progress of a long call to whoever listens (MCP progress notifications). */
  readonly progress: (update: ProgressUpdate) => Effect.Effect<void>
}

export interface ActionContext extends CallInfo {
  readonly persist: null
}

export interface ReadContext extends CallInfo {
  readonly persist: PersistApi
}

export interface ToolFields<I, II, O, OI> {
  readonly id: string
  readonly family: string
  readonly label: string
  readonly description: string
  readonly plan: Plan
  readonly hints: Hints
  readonly cost: Cost
  readonly level: Level
  readonly stages: ReadonlyArray<Stage>
  readonly external?: boolean
  readonly scope?: string
  readonly input: Schema.Schema<I, II>
  readonly output: Schema.Schema<O, OI>
  /** Units a credits tool would deliver for this input (used to quote before spending). */
  readonly quote?: (input: I) => number
}

export type ToolSpec = Omit<ToolFields<unknown, unknown, unknown, unknown>, "input" | "output" | "quote"> & {
  readonly plane: Plane
  readonly quoted: boolean
}

/** A decoded call, ready to run: the output comes back encoded (JSON-safe). */
export type Prepared<R> = (ctx: CallInfo, persist: PersistApi | null) => Effect.Effect<unknown, HandlerError, R>

export interface Tool<out R = never> {
  readonly spec: ToolSpec
  readonly input: Schema.Schema.AnyNoContext
  readonly output: Schema.Schema.AnyNoContext
  readonly prepare: (raw: unknown) => Effect.Effect<Prepared<R>, InvalidInput>
}

export type AnyTool = Tool<unknown>
export type ToolContext<T> = T extends Tool<infer R> ? R : never

type NoPersist<R> = [Extract<R, Persist>] extends [never]
  ? unknown
  : { readonly "action-plane tools must not require Persist": never }

/** Marks the Tag of a client that talks to an external system (SII, a bank). */
export interface UpstreamClient {
  readonly "brein/UpstreamClient": true
}

type NoUpstream<Id extends string, R> = Id extends `${string}.consultar`
  ? [Extract<R, UpstreamClient>] extends [never]
    ? unknown
    : { readonly ".consultar tools read the cache and must not require an upstream client": never }
  : unknown

export const invalidInput = (error: ParseResult.ParseError) => {
  const { issues, total } = issuesOf(error, "input")
  return InvalidInput.of(issues, total)
}

const NoFields = Schema.Record({ key: Schema.String, value: Schema.Never })
const isEmptyStruct = (ast: SchemaAST.AST) =>
  SchemaAST.isTypeLiteral(ast) && ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0

/** The field names an input accepts, when its schema is a closed object (after refinements and transformations). */
const fieldsOf = (ast: SchemaAST.AST): ReadonlySet<string> | undefined => {
  if (SchemaAST.isRefinement(ast) || SchemaAST.isTransformation(ast)) return fieldsOf(ast.from)
  if (!SchemaAST.isTypeLiteral(ast) || ast.indexSignatures.length > 0) return undefined
  return new Set(ast.propertySignatures.map((p) => String(p.name)))
}

/**
 * Many unknown fields are refused by a count before the schema sees them: decoding them one issue
 * each (errors: "all") would cost time and memory in proportion to what the sender chose to send.
 */
const tooManyUnknown = (fields: ReadonlySet<string> | undefined, raw: unknown): InvalidInput | undefined => {
  if (fields === undefined || typeof raw !== "object" || raw === null || Array.isArray(raw)) return undefined
  const shown: Array<string> = []
  let unknown = 0
  for (const key in raw) {
    if (!Object.hasOwn(raw, key) || fields.has(key)) continue
    unknown++
    if (shown.length < MAX_ISSUES) shown.push(key)
  }
  if (unknown <= MAX_ISSUES) return undefined
  const issues = shown.map((key) => ({ path: `input.${key.length > 60 ? `${key.slice(0, 59)}…` : key}`, message: "is not a field this input accepts" }))
  return new InvalidInput({ message: summary(issues, unknown), issues })
}

const EncodedTypeId: unique symbol = Symbol.for("brein/tools/EncodedOutput")

/**
 * An output the handler already holds in its encoded (JSON) form and has checked against the output
 * schema itself (a page of cached rows read as JSON): the tool sends it as is instead of encoding it.
 */
export interface EncodedOutput<OI> {
  readonly [EncodedTypeId]: OI
}

export const encodedOutput = <OI>(value: OI): EncodedOutput<OI> => ({ [EncodedTypeId]: value })

const isEncodedOutput = (u: unknown): u is EncodedOutput<unknown> => typeof u === "object" && u !== null && EncodedTypeId in u

const make = <I, II, O, OI, E extends HandlerError, R, C>(
  plane: Plane,
  definition: ToolFields<I, II, O, OI> & { readonly handler: (input: I, ctx: C) => Effect.Effect<O | EncodedOutput<OI>, E, R> },
  context: (info: CallInfo, persist: PersistApi | null) => Effect.Effect<C>
): Tool<R> => {
  const { input, output, quote, handler, ...rest } = definition
  const decodeInput = Schema.decodeUnknown(input, { errors: "all", onExcessProperty: "error" })
  // Schema.Struct({}) accepts any non-nullish value; a tool without fields takes only an empty object.
  const closed = isEmptyStruct(input.ast) ? Schema.decodeUnknown(NoFields, { errors: "all" }) : Effect.succeed
  const fields = fieldsOf(input.ast)
  const decode = (raw: unknown) => {
    const refused = tooManyUnknown(fields, raw)
    return refused === undefined
      ? Effect.zipRight(closed(raw), decodeInput(raw)).pipe(Effect.mapError(invalidInput))
      : Effect.fail(refused)
  }
  const encode = Schema.encode(output)
  return {
    spec: { ...rest, plane, quoted: quote !== undefined },
    input,
    output,
    prepare: (raw) =>
      decode(raw).pipe(
        Effect.map((decoded) => (info, persist) =>
          context(info, persist).pipe(
            Effect.flatMap((ctx) => handler(decoded, ctx)),
            Effect.flatMap((result) =>
              isEncodedOutput(result) ? Effect.succeed(result[EncodedTypeId]) : encode(result).pipe(
                Effect.mapError((error) =>
                  new ToolFailed({ toolId: definition.id, message: `output did not match its schema: ${error.message}` })
                )
              )
            )
          )
        )
      )
  }
}

/** An ephemeral tool: persists nothing of business, and its Effect cannot require Persist. */
export const action = <const Id extends string, I, II, O, OI, E extends HandlerError, R>(
  definition: ToolFields<I, II, O, OI> & {
    readonly id: Id
    readonly handler: (input: I, ctx: ActionContext) => Effect.Effect<O | EncodedOutput<OI>, E, R>
  } & NoPersist<R> & NoUpstream<Id, R>
): Tool<R> => {
  return make("action", definition, (info) =>
    Effect.succeed<ActionContext>({ ...info, persist: null }))
}

/** A persistent tool: syncs an external system into the cache through Persist (paid connectors only). */
export const read = <I, II, O, OI, E extends HandlerError, R>(
  definition: ToolFields<I, II, O, OI> & {
    readonly handler: (input: I, ctx: ReadContext) => Effect.Effect<O, E, R>
  }
): Tool<R> => {
  return make("read", definition, (info, persist) =>
    persist === null
      ? Effect.dieMessage(`read tool ${definition.id} ran without its persistence buffer`)
      : Effect.succeed<ReadContext>({ ...info, persist }))
}

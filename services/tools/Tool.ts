import type { ParseResult } from "effect"
import { Effect, Either, Option, Schema, SchemaAST, type Tracer } from "effect"
import {
  BUDGET_FIELD_NAMES,
  BudgetFields,
  confirmedWithQuote,
  Quote,
  type QuoteItem,
  type QuoteItemStatus
} from "../../schema/budget/Budget.ts"
import { InvalidInput, ToolFailed } from "../../schema/Errors.ts"
import type { ConnectionId } from "../../schema/Ids.ts"
import { issuesOf, NOT_A_FIELD } from "../../schema/Issues.ts"
import type { CallContext, ProgressUpdate } from "../../schema/Principal.ts"
import type { Cost, Exposure, Hints, Level, Plan, Plane, Stage } from "../../schema/tools/Definition.ts"
import type { EnvelopeExtras } from "../../schema/tools/Envelope.ts"
import type { HandlerError } from "../../schema/tools/ToolError.ts"
import { digestOf } from "../audit/Chain.ts"
import { inputGuide } from "./InputGuide.ts"
import type { Persist, PersistApi } from "./Persist.ts"

export interface CallInfo extends Required<Pick<CallContext, "surface" | "principal">> {
  readonly requestId: string
  /** The chat session the call is made in, if any (Luna's calls). */
  readonly sessionId: string | null
  /** Adds instructions next to the data (warnings, next actions, a hint); a later call replaces a field. */
  readonly annotate: (extras: EnvelopeExtras) => Effect.Effect<void>
  /** Reports progress of a long call to whoever listens (MCP progress notifications). */
  readonly progress: (update: ProgressUpdate) => Effect.Effect<void>
  /** The step that runs the handler (its span): the handler's own spans go under it. */
  readonly span: Tracer.AnySpan
}

/** A tool that needs no connection. */
export interface ActionContext extends CallInfo {
  readonly connectionId: null
  readonly persist: null
}

/** A connector tool behind a connection: the executor authorized this one before the handler runs. */
export interface ConnectedContext extends CallInfo {
  readonly connectionId: ConnectionId
  readonly persist: null
}

export interface ReadContext extends CallInfo {
  readonly connectionId: ConnectionId
  readonly persist: PersistApi
}

/** What a read tool does once its transaction committed: it holds the connection, never the buffer. */
export type AfterCommitContext = ConnectedContext

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
  /** Its answer aggregates figures: every total comes with its average and a ref (checked by a test over the registry). */
  readonly aggregate?: boolean
  /** How its answers reach a model: "abstracted" marks its HTTP responses (success and errors) with X-Driftless-Model-Exposure. */
  readonly exposure?: Exposure
}

export type ToolSpec = Omit<ToolFields<unknown, unknown, unknown, unknown>, "input" | "output" | "quote" | "aggregate"> & {
  readonly plane: Plane
  readonly quoted: boolean
  readonly aggregate: boolean
}

/**
 * What the budget step needs of a credits call: the budget fields it was sent, the digest of the rest
 * of its input (what a quote and an idempotency key are bound to), how to quote it, and how many
 * units its (encoded) answer delivered.
 */
export interface Metered<R> {
  readonly confirm: boolean
  readonly quoteToken: string | undefined
  readonly idempotencyKey: string | undefined
  readonly inputDigest: string
  readonly quote: (info: CallInfo) => Effect.Effect<ReadonlyArray<QuoteItem>, HandlerError, R>
  readonly delivered: (answer: unknown) => number
}

/** How a decoded call runs: what it needs from the executor is in its type. */
export type Prepared<R> =
  | {
    readonly access: "open"
    readonly run: (info: CallInfo) => Effect.Effect<unknown, HandlerError, R>
    readonly metered?: Metered<R>
  }
  | { readonly access: "connected"; readonly run: (info: CallInfo, connectionId: ConnectionId) => Effect.Effect<unknown, HandlerError, R> }
  | { readonly access: "buffered"; readonly run: (info: CallInfo, persist: PersistApi) => Effect.Effect<Committed<R>, HandlerError, R> }

export type Access = Prepared<never>["access"]

/** A read call's answer as its transaction commits it (encoded), and what runs after the commit. */
export interface Committed<R> {
  /** What the audit row's output digest covers: the call's answer as committed. */
  readonly answer: unknown
  readonly afterCommit: Option.Option<(info: CallInfo) => Effect.Effect<unknown, HandlerError, R>>
}

export interface Tool<out R = never> {
  readonly spec: ToolSpec
  readonly access: Access
  readonly input: Schema.Schema.AnyNoContext
  readonly output: Schema.Schema.AnyNoContext
  readonly prepare: (raw: unknown) => Either.Either<Prepared<R>, InvalidInput>
}

export type AnyTool = Tool<unknown>
export type ToolContext<T> = T extends Tool<infer R> ? R : never

type NoPersist<R> = [Extract<R, Persist>] extends [never] ? unknown
  : { readonly "action-plane tools must not require Persist": never }

/** What runs after the commit holds no transaction: a tool whose `afterCommit` requires Persist is no tool. */
type AfterCommitGuard<R2, T> = [Extract<R2, Persist>] extends [never] ? T
  : { readonly "afterCommit runs after the transaction and must not require Persist": never }

/** Marks the Tag of a client that talks to an external system (SII, a bank). */
export interface UpstreamClient {
  readonly "brein/UpstreamClient": true
}

type NoUpstream<Id extends string, R> = Id extends `${string}.consultar` ? [Extract<R, UpstreamClient>] extends [never] ? unknown
  : { readonly ".consultar tools read the cache and must not require an upstream client": never }
  : unknown

export const invalidInput = (error: ParseResult.ParseError) => {
  const { issues, total } = issuesOf(error, "input")
  return InvalidInput.of(issues, total)
}

const NoFields = Schema.Record({
  key: Schema.String,
  value: Schema.Never.annotations({ message: () => NOT_A_FIELD })
})
const isEmptyStruct = (ast: SchemaAST.AST) =>
  SchemaAST.isTypeLiteral(ast) && ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0

/**
 * How every tool decodes its input (and search_docs, over MCP): every issue at once, a field it does not
 * define refused, with the hint of what it takes (`inputGuide`). Inputs are decoded synchronously (a
 * tool's input schema has no effects): an Either, which is also an Effect.
 */
export const decoderOf = <I, II>(id: string, input: Schema.Schema<I, II>) => {
  const decodeInput = Schema.decodeUnknownEither(input, { errors: "all", onExcessProperty: "error" })
  // Schema.Struct({}) accepts any non-nullish value; a tool without fields takes only an empty object.
  const closed = isEmptyStruct(input.ast) ? Schema.decodeUnknownEither(NoFields, { errors: "all" }) : Either.right
  const guide = inputGuide(id, input.ast)
  return (raw: unknown): Either.Either<I, InvalidInput> => {
    const unknown = guide.unknownOf(raw)
    const refused = guide.tooMany(unknown)
    return Either.mapLeft(
      refused === undefined ? Either.flatMap(closed(raw), () => decodeInput(raw)).pipe(Either.mapLeft(invalidInput)) : Either.left(refused),
      (error) => guide.hinted(raw, unknown, error)
    )
  }
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

const encoderOf = <O, OI>(id: string, output: Schema.Schema<O, OI>) => {
  const encode = Schema.encodeEither(output)
  return (result: O | EncodedOutput<OI>): Either.Either<unknown, ToolFailed> =>
    isEncodedOutput(result) ? Either.right(result[EncodedTypeId]) : encode(result).pipe(
      Either.mapLeft((error) => new ToolFailed({ toolId: id, message: `output did not match its schema: ${error.message}` }))
    )
}

type Definition<I, II, O, OI, C, E, R> = ToolFields<I, II, O, OI> & {
  readonly handler: (input: I, ctx: C) => Effect.Effect<O | EncodedOutput<OI>, E, R>
}

const specOf = <I, II, O, OI>(plane: Plane, d: ToolFields<I, II, O, OI>): ToolSpec => ({
  id: d.id,
  family: d.family,
  label: d.label,
  description: d.description,
  plan: d.plan,
  hints: d.hints,
  cost: d.cost,
  level: d.level,
  stages: d.stages,
  ...(d.external === undefined ? {} : { external: d.external }),
  ...(d.scope === undefined ? {} : { scope: d.scope }),
  ...(d.exposure === undefined ? {} : { exposure: d.exposure }),
  plane,
  quoted: d.quote !== undefined,
  aggregate: d.aggregate ?? false
})

/** What an action tool's handler is given, by access kind: no connection, or the one the executor authorized. */
interface ActionAccess<C> {
  readonly access: Exclude<Access, "buffered">
  readonly bind: <R>(handle: (ctx: C) => Effect.Effect<unknown, HandlerError, R>) => Prepared<R>
}

const open: ActionAccess<ActionContext> = {
  access: "open",
  bind: (handle) => ({ access: "open", run: (info) => handle({ ...info, connectionId: null, persist: null }) })
}

const connected: ActionAccess<ConnectedContext> = {
  access: "connected",
  bind: (handle) => ({ access: "connected", run: (info, connectionId) => handle({ ...info, connectionId, persist: null }) })
}

const actionTool = <C, I, II, O, OI, E extends HandlerError, R>(
  kind: ActionAccess<C>,
  definition: Definition<I, II, O, OI, C, E, R>
): Tool<R> => {
  const decode = decoderOf(definition.id, definition.input)
  const encode = encoderOf(definition.id, definition.output)
  return {
    spec: specOf("action", definition),
    access: kind.access,
    input: definition.input,
    output: definition.output,
    prepare: (raw) => Either.map(decode(raw), (decoded) => kind.bind((ctx) => Effect.flatMap(definition.handler(decoded, ctx), encode)))
  }
}

/** An ephemeral tool: persists nothing of business, and its Effect cannot require Persist. */
export const action = <const Id extends string, I, II, O, OI, E extends HandlerError, R>(
  definition: Definition<I, II, O, OI, ActionContext, E, R> & { readonly id: Id } & NoPersist<R> & NoUpstream<Id, R>
): Tool<R> => actionTool(open, definition)

/** An action tool of a connector behind a connection: its handler gets the authorized `ConnectionId`. */
export const connectedAction = <const Id extends string, I, II, O, OI, E extends HandlerError, R>(
  definition: Definition<I, II, O, OI, ConnectedContext, E, R> & { readonly id: Id } & NoPersist<R> & NoUpstream<Id, R>
): Tool<R> => actionTool(connected, definition)

/**
 * A persistent tool: syncs an external system into the cache through Persist (paid connectors only).
 * `handler` runs in the call's transaction and answers as of the commit; `afterCommit`, when given,
 * runs once the transaction (the tool's writes and its audit row) committed, outside any transaction,
 * and answers in its place: the place to wait for progress without holding a database connection.
 */
export const read = <I, II, O, OI, E extends HandlerError, R, E2 extends HandlerError = never, R2 = never>(
  definition: ToolFields<I, II, O, OI> & {
    readonly handler: (input: I, ctx: ReadContext) => Effect.Effect<O, E, R>
    readonly afterCommit?: (input: I, committed: NoInfer<O>, ctx: AfterCommitContext) => Effect.Effect<NoInfer<O>, E2, R2>
  }
): AfterCommitGuard<R2, Tool<R | R2>> => {
  const decode = decoderOf(definition.id, definition.input)
  const encode = encoderOf(definition.id, definition.output)
  const after = definition.afterCommit
  const tool: Tool<R | R2> = {
    spec: specOf("read", definition),
    access: "buffered",
    input: definition.input,
    output: definition.output,
    prepare: (raw) =>
      Either.map(decode(raw), (decoded): Prepared<R | R2> => ({
        access: "buffered",
        run: (info, persist) =>
          Effect.gen(function* () {
            const committed = yield* definition.handler(decoded, { ...info, connectionId: persist.connectionId, persist })
            return {
              answer: yield* encode(committed),
              afterCommit: after === undefined ?
                Option.none() :
                Option.some((later: CallInfo) =>
                  Effect.flatMap(after(decoded, committed, { ...later, connectionId: persist.connectionId, persist: null }), encode)
                )
            }
          })
      }))
  }
  // The guard is a type: at run time the registry never hands the after-commit part a Persist.
  return tool as AfterCommitGuard<R2, Tool<R | R2>>
}

/** An item a credits tool would deliver, as its quote lists it; the price comes from the tool's cost. */
export interface QuoteDraftItem {
  readonly id: string
  readonly label: string
  readonly status: typeof QuoteItemStatus.Type
}

const withoutBudgetFields = (raw: unknown): unknown => {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw
  return Object.fromEntries(Object.entries(raw).filter(([key]) => !BUDGET_FIELD_NAMES.has(key)))
}

/**
 * A tool that spends credits (approval level 2): called without `confirm` it answers a quote of
 * `quoteItems` and changes nothing; with `confirm`, a live `quote_token` and an `idempotency_key` the
 * budget step runs `handler` and charges the tool's unit price for each unit `delivered` counts in
 * its answer, never more than the quote's chargeable items. Its input takes the budget fields besides
 * its own; its output is the quote or the handler's answer.
 */
export const creditsAction = <const Id extends string, I extends object, II, O, OI, E extends HandlerError, R, RQ>(
  definition:
    & Omit<ToolFields<I, II, O, OI>, "quote" | "cost">
    & {
      readonly id: Id
      readonly cost: { readonly kind: "credits"; readonly unit: string; readonly unitPrice: number }
      readonly quoteItems: (input: I, ctx: ActionContext) => Effect.Effect<ReadonlyArray<QuoteDraftItem>, E, RQ>
      readonly delivered: (answer: OI) => number
      readonly handler: (input: I, ctx: ActionContext) => Effect.Effect<O, E, R>
    }
    & NoPersist<R | RQ>
): Tool<R | RQ> => {
  const input = Schema.extend(definition.input, Schema.Struct(BudgetFields)).pipe(confirmedWithQuote)
  const output = Schema.Union(Quote, definition.output)
  const decode = decoderOf(definition.id, input)
  const encode = encoderOf(definition.id, definition.output)
  const price = definition.cost.unitPrice
  // the tool's own input: what its schema decoded, without the budget fields (a decoded I has no other keys)
  const own = (decoded: typeof input.Type): I => {
    const { confirm: _c, idempotency_key: _k, quote_token: _q, ...rest } = decoded
    return rest as unknown as I
  }
  const ctxOf = (info: CallInfo): ActionContext => ({ ...info, connectionId: null, persist: null })
  return {
    spec: { ...specOf("action", definition), quoted: true },
    access: "open",
    input,
    output,
    prepare: (raw) =>
      Either.map(decode(raw), (decoded): Prepared<R | RQ> => ({
        access: "open",
        run: (info) => Effect.flatMap(definition.handler(own(decoded), ctxOf(info)), encode),
        metered: {
          confirm: decoded.confirm === true,
          quoteToken: decoded.quote_token,
          idempotencyKey: decoded.idempotency_key,
          inputDigest: digestOf(withoutBudgetFields(raw)),
          quote: (info) =>
            Effect.map(
              definition.quoteItems(own(decoded), ctxOf(info)),
              (items) => items.map((item) => ({ ...item, unit_cost: item.status === "chargeable" ? price : 0 }))
            ),
          delivered: (answer) => definition.delivered(answer as OI)
        }
      }))
  }
}

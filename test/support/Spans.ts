import { Context, Effect, type Exit, Layer, Option, Tracer } from "effect"
import { randomBytes } from "node:crypto"

/** A finished span as a test reads it. */
export interface SpanRecord {
  readonly name: string
  readonly traceId: string
  readonly spanId: string
  /** The parent's span id (also a remote parent's, from a traceparent header); undefined for a root. */
  readonly parentId: string | undefined
  readonly attributes: Readonly<Record<string, unknown>>
  readonly links: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>
  readonly failed: boolean
  /** From its start to its end, in milliseconds of the tracer's clock. */
  readonly durationMs: number
}

/** A span with the spans that ran under it, in the order they started. */
export interface SpanNode extends SpanRecord {
  readonly children: ReadonlyArray<SpanNode>
}

class CollectedSpan implements Tracer.Span {
  readonly _tag = "Span"
  readonly spanId = randomBytes(8).toString("hex")
  readonly traceId: string
  readonly sampled = true
  readonly attributes = new Map<string, unknown>()
  readonly links: Array<Tracer.SpanLink>
  status: Tracer.SpanStatus

  constructor(
    readonly name: string,
    readonly parent: Option.Option<Tracer.AnySpan>,
    readonly context: Context.Context<never>,
    links: ReadonlyArray<Tracer.SpanLink>,
    startTime: bigint,
    readonly kind: Tracer.SpanKind,
    private readonly onEnd: (span: CollectedSpan, exit: Exit.Exit<unknown, unknown>) => void
  ) {
    this.traceId = Option.isSome(parent) ? parent.value.traceId : randomBytes(16).toString("hex")
    this.links = [...links]
    this.status = { _tag: "Started", startTime }
  }

  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>) {
    this.status = { _tag: "Ended", startTime: this.status.startTime, endTime, exit }
    this.onEnd(this, exit)
  }

  attribute(key: string, value: unknown) {
    this.attributes.set(key, value)
  }

  event() {}

  addLinks(links: ReadonlyArray<Tracer.SpanLink>) {
    this.links.push(...links)
  }
}

/** The spans finished since the layer was built (or last cleared), oldest start first. */
export class Spans extends Context.Tag("test/Spans")<Spans, {
  readonly finished: Effect.Effect<ReadonlyArray<SpanRecord>>
  readonly clear: Effect.Effect<void>
}>() {}

/**
 * A tracer that keeps every finished span in memory. Provide it before the layers whose spans the
 * test reads (servers fork their fibers while they are built, with the tracer current then).
 */
export const SpansTest: Layer.Layer<Spans> = Layer.unwrapEffect(Effect.sync(() => {
  const finished: Array<readonly [start: bigint, SpanRecord]> = []
  const record = (span: CollectedSpan, exit: Exit.Exit<unknown, unknown>) =>
    finished.push([span.status.startTime, {
      name: span.name,
      traceId: span.traceId,
      spanId: span.spanId,
      parentId: Option.getOrUndefined(Option.map(span.parent, (p) => p.spanId)),
      attributes: Object.fromEntries(span.attributes),
      links: span.links.map((l) => ({ traceId: l.span.traceId, spanId: l.span.spanId })),
      failed: exit._tag === "Failure",
      durationMs: span.status._tag === "Ended" ? Number(span.status.endTime - span.status.startTime) / 1e6 : 0
    }])
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => new CollectedSpan(name, parent, context, links, startTime, kind, record),
    context: (f) => f()
  })
  const spans = Spans.of({
    finished: Effect.sync(() => [...finished].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, span]) => span)),
    clear: Effect.sync(() => void finished.splice(0))
  })
  return Layer.merge(Layer.setTracer(tracer), Layer.succeed(Spans, spans))
}))

export const finishedSpans = Effect.flatMap(Spans, (spans) => spans.finished)

export const clearSpans = Effect.flatMap(Spans, (spans) => spans.clear)

/** The spans named `name` (or matching `name`). */
export const spansNamed = (spans: ReadonlyArray<SpanRecord>, name: string | RegExp) =>
  spans.filter((s) => (typeof name === "string" ? s.name === name : name.test(s.name)))

/** `root` with everything that ran under it, from the finished spans. */
export const treeOf = (spans: ReadonlyArray<SpanRecord>, root: SpanRecord): SpanNode => ({
  ...root,
  children: spans.filter((s) => s.parentId === root.spanId && s.traceId === root.traceId).map((child) => treeOf(spans, child))
})

/** Every span below `node`, depth first. */
export const descendants = (node: SpanNode): ReadonlyArray<SpanNode> => node.children.flatMap((child) => [child, ...descendants(child)])

/** The names of `node`'s children, in the order they started. */
export const childNames = (node: SpanNode): ReadonlyArray<string> => node.children.map((child) => child.name)

/** The first span named `name` below `node`. */
export const below = (node: SpanNode, name: string): Option.Option<SpanNode> =>
  Option.fromNullable(descendants(node).find((s) => s.name === name))

/** The tree as indented names, for assertion messages. */
export const render = (node: SpanNode, depth = 0): string =>
  [`${"  ".repeat(depth)}${node.name}`, ...node.children.map((child) => render(child, depth + 1))].join("\n")

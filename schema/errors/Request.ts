import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { TOOL_ID_MAX } from "../Ids.ts"
import { type Issue, MAX_ISSUES, summary } from "../Issues.ts"
import { characters, leading, shortened } from "../Length.ts"
import { Guidance } from "./Guidance.ts"

const MAX_ID_SHOWN = 64

export class ToolNotFound extends Schema.TaggedError<ToolNotFound>()(
  "ToolNotFound",
  { toolId: Schema.String, message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 404 })
) {
  /**
   * The id as sent, escaped (JSON) and clipped: a malformed id is named, never echoed whole. `near`
   * is the id of a tool the caller can reach that it probably meant.
   */
  static of(toolId: string, near?: string) {
    const shown = shortened(toolId, MAX_ID_SHOWN)
    const quoted = JSON.stringify(shown)
    return new ToolNotFound({
      toolId: shown,
      message: shown !== toolId
        ? `no tool with id ${quoted} (${characters(toolId).toLocaleString("en-US")} characters; a tool id is at most ${TOOL_ID_MAX})`
        : `no tool with id ${quoted}`,
      ...(near === undefined ? {} : { hint: `Did you mean ${near}?` })
    })
  }
}

export const InputIssue = Schema.Struct({ path: Schema.String, message: Schema.String })

export class InvalidInput extends Schema.TaggedError<InvalidInput>()(
  "InvalidInput",
  {
    message: Schema.String,
    issues: Schema.Array(InputIssue).annotations({ description: `At most ${MAX_ISSUES}; the message counts the rest` }),
    ...Guidance
  },
  HttpApiSchema.annotations({ status: 422 })
) {
  /** At most MAX_ISSUES issues; `total` (when more were found than are listed) is counted in the message. */
  static of(issues: ReadonlyArray<Issue>, total: number = issues.length) {
    return new InvalidInput({ message: summary(issues, Math.max(total, issues.length)), issues: issues.slice(0, MAX_ISSUES) })
  }
}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  { message: Schema.String, limitBytes: Schema.Int },
  HttpApiSchema.annotations({ status: 413 })
) {}

export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 415 })
) {
  /** `accepted`: what the route takes, as said to the caller (JSON everywhere but where a form is posted). */
  static of(contentType: string | undefined, accepted = "JSON: send it with Content-Type: application/json") {
    return new UnsupportedMediaType({
      message: `the request body must be ${accepted}${
        contentType === undefined ? " (none was sent)" : `, not ${leading(contentType, 100)}`
      }`
    })
  }

  /** A compressed body (RFC 9110's 415 for a content coding the server does not read). */
  static encoding(encoding: string) {
    return new UnsupportedMediaType({
      message: `the request body must be sent uncompressed (no Content-Encoding, or identity), not Content-Encoding ${
        JSON.stringify(leading(encoding, 40))
      }`
    })
  }

  /** A body declared in a character set other than UTF-8, the one every body is read in. */
  static charset(charset: string) {
    return new UnsupportedMediaType({
      message: `the request body must be UTF-8 (charset=utf-8, or no charset), not charset=${JSON.stringify(leading(charset, 40))}`
    })
  }
}

export class RouteNotFound extends Schema.TaggedError<RouteNotFound>()(
  "RouteNotFound",
  { message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 404 })
) {}

export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()(
  "MethodNotAllowed",
  { message: Schema.String, allowed: Schema.Array(Schema.String) },
  HttpApiSchema.annotations({ status: 405 })
) {}

export class RecordNotFound extends Schema.TaggedError<RecordNotFound>()(
  "RecordNotFound",
  {
    kind: Schema.Literal("company", "person", "list", "directory", "supplier", "unit", "opportunity", "market_dataset", "connection")
      .annotations({
        description: "What was looked for"
      }),
    ids: Schema.Array(Schema.String).annotations({ description: "The ids not found (at most 20 shown)" }),
    message: Schema.String,
    ...Guidance
  },
  HttpApiSchema.annotations({ status: 404 })
) {
  static of(kind: RecordNotFound["kind"], ids: ReadonlyArray<string>, guidance: Guidance = {}, detail?: string) {
    const shown = ids.slice(0, 20)
    const more = ids.length > shown.length ? ` and ${ids.length - shown.length} more` : ""
    return new RecordNotFound({
      kind,
      ids: shown,
      message: `no ${kind} ${shown.map((id) => JSON.stringify(id)).join(", ")}${more}${detail === undefined ? "" : `: ${detail}`}`,
      ...guidance
    })
  }
}

export class BadRequest extends Schema.TaggedError<BadRequest>()(
  "BadRequest",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {}

export const CursorRejection = Schema.Literal("tampered", "foreign_workspace", "stale", "other_search").annotations({
  description: "tampered: altered or not made here; foreign_workspace: issued to another workspace; " +
    "stale: older than 30 minutes, dated ahead of this server's clock, or the data set was reloaded since; other_search: made by a search with other filters"
})
export type CursorRejection = typeof CursorRejection.Type

const CURSOR_PROBLEM: Record<CursorRejection, string> = {
  tampered: "the cursor was altered or was not issued by this service",
  foreign_workspace: "the cursor was issued to another workspace",
  stale:
    "the cursor expired (cursors live 30 minutes), is dated ahead of this server's clock, or the data set was reloaded since it was issued",
  other_search: "the cursor belongs to a search with other filters"
}

/** A sealed cursor refused: the search starts again from its first page. */
export class CursorRejected extends Schema.TaggedError<CursorRejected>()(
  "CursorRejected",
  { reason: CursorRejection, message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 400 })
) {
  static of(reason: CursorRejection, toolId: string) {
    return new CursorRejected({
      reason,
      message: `${CURSOR_PROBLEM[reason]}: start again from the first page (the same filters without cursor)`,
      hint: `Call ${toolId} again without cursor, then follow the cursors it answers`,
      next_actions: [{ tool: toolId, reason: "start again from the first page: the same filters without cursor" }]
    })
  }
}

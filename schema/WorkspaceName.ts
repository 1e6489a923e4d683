import { HttpApiSchema } from "@effect/platform"
import { Effect, ParseResult, Schema } from "effect"
import { characters, leading, maxLength } from "./Length.ts"
import { oneLine, printable } from "./OneLine.ts"

const BLANK = "a workspace name must not be blank"
const MAX_LENGTH = 100

/** Decoding trims: " acme " names the workspace "acme", in every command and lookup. */
export const WorkspaceName = Schema.Trim.pipe(
  Schema.filter((name) => name !== "", { message: () => BLANK }),
  oneLine("a workspace name must not hold control characters (a tab, a line break, a direction override)"),
  maxLength(MAX_LENGTH, { message: () => `a workspace name must be at most ${MAX_LENGTH} characters` }),
  Schema.brand("WorkspaceName")
).annotations({
  identifier: "WorkspaceName",
  description:
    `A workspace's name: text of 1 to ${MAX_LENGTH} characters with at least one visible character and no control characters, without leading or trailing spaces`
})
export type WorkspaceName = typeof WorkspaceName.Type

export class WorkspaceNameInvalid extends Schema.TaggedError<WorkspaceNameInvalid>()(
  "WorkspaceNameInvalid",
  { name: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 422 })
) {}

/** The name as a WorkspaceName, or WorkspaceNameInvalid saying why. */
export const decodeWorkspaceName = (name: string) =>
  Schema.decodeUnknown(WorkspaceName)(name).pipe(
    Effect.mapError((error) =>
      new WorkspaceNameInvalid({
        name: leading(name, MAX_LENGTH),
        message: `${ParseResult.ArrayFormatter.formatErrorSync(error)[0]?.message ?? BLANK} (got ${
          printable(characters(name) > 40 ? `${JSON.stringify(leading(name, 20))}…, ${characters(name)} characters` : JSON.stringify(name))
        })`
      })
    )
  )

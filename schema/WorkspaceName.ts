import { HttpApiSchema } from "@effect/platform"
import { Effect, Schema } from "effect"

const BLANK = "a workspace name must not be blank"

/** Decoding trims: " acme " names the workspace "acme", in every command and lookup. */
export const WorkspaceName = Schema.Trim.pipe(
  Schema.filter((name) => name !== "", { message: () => BLANK }),
  Schema.brand("WorkspaceName")
).annotations({
  identifier: "WorkspaceName",
  description: "A workspace's name: any text with at least one visible character, without leading or trailing spaces"
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
    Effect.mapError(() => new WorkspaceNameInvalid({ name, message: `${BLANK} (got ${JSON.stringify(name)})` }))
  )

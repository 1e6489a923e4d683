import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { Guidance } from "../Errors.ts"

/** No sequence, or no sender mailbox, by that id in this workspace (another workspace's is not found either). */
export class SequenceNotFound extends Schema.TaggedError<SequenceNotFound>()(
  "SequenceNotFound",
  {
    kind: Schema.Literal("sequence", "mailbox").annotations({ description: "What was looked for" }),
    id: Schema.String,
    message: Schema.String,
    ...Guidance
  },
  HttpApiSchema.annotations({ status: 404 })
) {}

export const SequenceConflictReason = Schema.Literal("not_draft", "duplicate_name").annotations({
  description: "not_draft: only a draft sequence is edited; duplicate_name: the workspace has a sequence of this name"
})

/** A write the sequence's state refuses: nothing was written. */
export class SequenceConflict extends Schema.TaggedError<SequenceConflict>()(
  "SequenceConflict",
  {
    reason: SequenceConflictReason,
    sequenceId: Schema.String,
    status: Schema.String.annotations({ description: "The sequence's status (draft, active, paused, completed)" }),
    message: Schema.String,
    ...Guidance
  },
  HttpApiSchema.annotations({ status: 409 })
) {}

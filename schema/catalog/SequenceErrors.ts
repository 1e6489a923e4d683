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
) {
  /** No sequence by that id in this workspace (the id shown is cut to 64 characters). */
  static of(sequenceId: string) {
    const shown = sequenceId.slice(0, 64)
    return new SequenceNotFound({
      kind: "sequence",
      id: shown,
      message: `no sequence ${JSON.stringify(shown)} in this workspace`,
      hint: "Sequences belong to a workspace: create one with sequence_create"
    })
  }
}

export const SequenceConflictReason = Schema.Literal("not_draft", "duplicate_name", "not_active", "not_paused").annotations({
  description: "not_draft: only a draft sequence is edited; duplicate_name: the workspace has a sequence of this name; " +
    "not_active: only an active sequence is paused; not_paused: only a paused sequence is resumed"
})

/** A sequence paused or resumed by a person: its status now, and when it changed. */
export const SequenceStatusChange = Schema.Struct({
  sequence_id: Schema.String,
  status: Schema.Literal("active", "paused"),
  changed: Schema.Boolean.annotations({ description: "false when the sequence already was in that status (nothing was written)" }),
  at: Schema.String.annotations({ description: "When it was paused or resumed (ISO 8601)" })
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

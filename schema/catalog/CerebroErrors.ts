import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { Guidance } from "../Errors.ts"

export class TopicNotFound extends Schema.TaggedError<TopicNotFound>()(
  "TopicNotFound",
  { topicId: Schema.String, message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 404 })
) {}

export const TopicConflictReason = Schema.Literal("duplicate_title", "stale_version", "unknown_version").annotations({
  description: "duplicate_title: the area already has a topic with this title (ignoring case and accents); " +
    "stale_version: the topic changed since the version the update was based on; " +
    "unknown_version: the update names a version later than the topic's, which it never had"
})

/** A write that would lose or repeat knowledge: nothing was written. */
export class TopicConflict extends Schema.TaggedError<TopicConflict>()(
  "TopicConflict",
  {
    reason: TopicConflictReason,
    topicId: Schema.String.annotations({ description: "The topic that already holds the title, or the one updated" }),
    currentVersion: Schema.Int,
    message: Schema.String,
    ...Guidance
  },
  HttpApiSchema.annotations({ status: 409 })
) {}

import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { closed } from "../Body.ts"
import { storable } from "../Depth.ts"
import { Guidance } from "../Errors.ts"
import { maxLength, minLength } from "../Length.ts"
import { Stage } from "../tools/Definition.ts"

export const WorkSessionId = Schema.String.pipe(Schema.pattern(/^ses_[A-Za-z0-9]+$/), Schema.brand("WorkSessionId"))
export type WorkSessionId = typeof WorkSessionId.Type

/** Who a session belongs to: a signed-in user (usr_…) or an API key (key_…), of one workspace. */
export const SessionOwner = Schema.String.pipe(Schema.pattern(/^(usr|key)_[A-Za-z0-9]+$/))

export const WorkSession = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  owner: Schema.String,
  title: Schema.NullOr(Schema.String),
  stage: Stage,
  created_at: Schema.String
}).annotations({ identifier: "WorkSession" })
export type WorkSession = typeof WorkSession.Type

export const CreateSessionBody = closed(Schema.Struct({
  title: Schema.optionalWith(Schema.String.pipe(minLength(1), maxLength(200), storable), { exact: true }),
  stage: Schema.optionalWith(Stage, { exact: true }).annotations({ description: "Where the session starts (buscando by default)" })
}))

export const MESSAGE_MAX = 8000

export const MessageBody = closed(Schema.Struct({
  text: Schema.Trim.pipe(
    Schema.compose(
      Schema.String.pipe(
        minLength(1, { message: () => "must not be blank" }),
        maxLength(MESSAGE_MAX, { message: () => `must be at most ${MESSAGE_MAX} characters` }),
        storable
      )
    )
  )
}))

/** No session by that id for this principal (another principal's or another workspace's is not found either). */
export class WorkSessionNotFound extends Schema.TaggedError<WorkSessionNotFound>()(
  "WorkSessionNotFound",
  { sessionId: Schema.String, message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 404 })
) {
  static of(sessionId: string) {
    const shown = sessionId.slice(0, 64)
    return new WorkSessionNotFound({
      sessionId: shown,
      message: `no session ${JSON.stringify(shown)} for this principal`,
      hint: "A session is seen only by the user or API key that created it: POST /api/v1/sessions creates one"
    })
  }
}

/** The session is already running a turn: one turn at a time. */
export class TurnInProgress extends Schema.TaggedError<TurnInProgress>()(
  "TurnInProgress",
  { sessionId: Schema.String, turnId: Schema.String, message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 409 })
) {}

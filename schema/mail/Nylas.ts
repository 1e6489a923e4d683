import { Schema } from "effect"

/** Nylas v3 (Email API) shapes: what the dispatcher sends and reads, and what the bundled simulator answers. */

export const EmailName = Schema.Struct({ email: Schema.String, name: Schema.optional(Schema.String) })

export const Metadata = Schema.Record({ key: Schema.String, value: Schema.String })

/** A header the message is sent with (Nylas `custom_headers`). */
export const Header = Schema.Struct({ name: Schema.String, value: Schema.String })

/** `POST /v3/grants/{grant_id}/messages/send` (JSON). */
export const SendRequest = Schema.Struct({
  to: Schema.NonEmptyArray(EmailName),
  from: Schema.optional(Schema.Array(EmailName)),
  subject: Schema.String,
  body: Schema.String,
  /** Sends in the thread of that message (a follow-up step). */
  reply_to_message_id: Schema.optional(Schema.String),
  metadata: Schema.optional(Metadata),
  custom_headers: Schema.optional(Schema.Array(Header))
})
export type SendRequest = typeof SendRequest.Type

export const Message = Schema.Struct({
  id: Schema.String,
  grant_id: Schema.String,
  thread_id: Schema.String,
  object: Schema.Literal("message"),
  subject: Schema.String,
  body: Schema.String,
  to: Schema.Array(EmailName),
  from: Schema.Array(EmailName),
  folders: Schema.Array(Schema.String),
  /** Unix seconds. */
  date: Schema.Int,
  metadata: Metadata,
  /** The custom headers it was sent with (Nylas answers them when asked to include headers). */
  headers: Schema.optional(Schema.Array(Header))
})
export type Message = typeof Message.Type

export const SendResponse = Schema.Struct({ request_id: Schema.String, data: Message })

export const MessageList = Schema.Struct({
  request_id: Schema.String,
  data: Schema.Array(Message),
  next_cursor: Schema.optional(Schema.String)
})

export const NotificationType = Schema.Literal("message.bounce_detected", "message.reply_received", "message.unsubscribe_requested")
export type NotificationType = typeof NotificationType.Type

/** A webhook-style notification (CloudEvents envelope as Nylas sends it), read from a grant's feed. */
export const Notification = Schema.Struct({
  specversion: Schema.Literal("1.0"),
  id: Schema.String,
  type: NotificationType,
  /** ISO instant of the event. */
  time: Schema.String,
  data: Schema.Struct({
    grant_id: Schema.String,
    object: Schema.Struct({
      /** The message we sent that bounced, was replied to, or carried the unsubscribe link. */
      message_id: Schema.String,
      thread_id: Schema.String,
      address: Schema.String,
      detail: Schema.String
    })
  })
})
export type Notification = typeof Notification.Type

/** `GET /v3/grants/{grant_id}/notifications?after=…`: the simulator's feed of what webhooks would push. */
export const NotificationPage = Schema.Struct({
  request_id: Schema.String,
  data: Schema.Array(Notification),
  next_cursor: Schema.String
})

export const ErrorBody = Schema.Struct({
  request_id: Schema.String,
  error: Schema.Struct({ type: Schema.String, message: Schema.String })
})
export type ErrorBody = typeof ErrorBody.Type

/** Nylas' recommendations for a sending grant (developer.nylas.com, improving email delivery). */
export const NYLAS_LIMITS = { dailyCap: 700, minSpacingMs: 30_000 } as const

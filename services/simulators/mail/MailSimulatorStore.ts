import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { Header, type Message, Metadata, type Notification, type NotificationType } from "../../../schema/mail/Nylas.ts"

const MessageRow = Schema.Struct({
  id: Schema.String,
  grantId: Schema.String,
  threadId: Schema.String,
  toEmail: Schema.String,
  fromEmail: Schema.String,
  subject: Schema.String,
  body: Schema.String,
  metadata: Schema.parseJson(Metadata),
  headers: Schema.parseJson(Schema.Array(Header)),
  date: Schema.DateFromSelf
})
const decodeMessages = Schema.decodeUnknown(Schema.Array(MessageRow))

const NotificationRow = Schema.Struct({
  seq: Schema.NumberFromString,
  id: Schema.String,
  grantId: Schema.String,
  type: Schema.Literal("message.bounce_detected", "message.reply_received", "message.unsubscribe_requested"),
  messageId: Schema.String,
  threadId: Schema.String,
  address: Schema.String,
  detail: Schema.String,
  at: Schema.DateFromSelf
})
const decodeNotifications = Schema.decodeUnknown(Schema.Array(NotificationRow))

const Usage = Schema.Struct({ today: Schema.Int, last: Schema.NullOr(Schema.DateFromSelf) })
const decodeUsage = Schema.decodeUnknown(Schema.Array(Usage))

const toMessage = (row: typeof MessageRow.Type): Message => ({
  id: row.id,
  grant_id: row.grantId,
  thread_id: row.threadId,
  object: "message",
  subject: row.subject,
  body: row.body,
  to: [{ email: row.toEmail }],
  from: [{ email: row.fromEmail }],
  folders: ["SENT"],
  date: Math.floor(row.date.getTime() / 1000),
  metadata: row.metadata,
  headers: row.headers
})

const toNotification = (row: typeof NotificationRow.Type): Notification => ({
  specversion: "1.0",
  id: row.id,
  type: row.type,
  time: row.at.toISOString(),
  data: {
    grant_id: row.grantId,
    object: { message_id: row.messageId, thread_id: row.threadId, address: row.address, detail: row.detail }
  }
})

export interface NotificationCursor {
  readonly at: number
  readonly seq: number
}

export const NotificationCursor = {
  start: { at: 0, seq: 0 } satisfies NotificationCursor,
  encode: (cursor: NotificationCursor) => `${cursor.at}.${cursor.seq}`,
  decode: (text: string): Option.Option<NotificationCursor> => {
    const match = /^(\d{1,15})\.(\d{1,15})$/.exec(text)
    return match === null ? Option.none() : Option.some({ at: Number(match[1]), seq: Number(match[2]) })
  }
}

export interface NewMessage {
  readonly grantId: string
  readonly to: string
  readonly from: string
  readonly subject: string
  readonly body: string
  readonly metadata: Readonly<Record<string, string>>
  readonly headers: ReadonlyArray<typeof Header.Type>
  readonly replyTo: string | undefined
  readonly date: Date
}

/** The mail simulator's state: the messages each grant sent and the notifications they caused. */
export class MailSimulatorStore extends Effect.Service<MailSimulatorStore>()("brein/simulators/mail/MailSimulatorStore", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql`id, grant_id, thread_id, to_email, from_email, subject, body, metadata, headers, date`

    /** How many messages the grant sent in [dayStart, dayStart + 1 day) and when it last sent. */
    const usage = Effect.fn("MailSimulatorStore.usage")(function* (grantId: string, dayStart: Date) {
      const dayEnd = new Date(dayStart.getTime() + 86_400_000)
      const rows = yield* sql`
        SELECT (count(*) FILTER (WHERE date >= ${dayStart} AND date < ${dayEnd}))::int AS today, max(date) AS last
        FROM mail_sim_messages WHERE grant_id = ${grantId}`.pipe(Effect.flatMap(decodeUsage))
      return rows[0] ?? { today: 0, last: null }
    }, Effect.orDie)

    /** Stores a sent message (in the thread of `replyTo` when it is one of the grant's): ids from `seed` and a counter. */
    const insert = Effect.fn("MailSimulatorStore.insert")(function* (seed: string, message: NewMessage) {
      const rows = yield* sql`
        WITH n AS (SELECT nextval('mail_sim_message_numbers') AS n),
        parent AS (SELECT thread_id FROM mail_sim_messages WHERE grant_id = ${message.grantId} AND id = ${message.replyTo ?? ""})
        INSERT INTO mail_sim_messages (id, grant_id, thread_id, to_email, from_email, subject, body, metadata, headers, send_key, reply_to,
          date)
        SELECT substr(md5(${seed}::text || ':m:' || n.n), 1, 26), ${message.grantId},
          coalesce((SELECT thread_id FROM parent), substr(md5(${seed}::text || ':t:' || n.n), 1, 26)),
          ${message.to}, ${message.from}, ${message.subject}, ${message.body}, ${JSON.stringify(message.metadata)},
          ${JSON.stringify(message.headers)}, ${message.metadata["send_key"] ?? null}, ${message.replyTo ?? null}, ${message.date}
        FROM n
        RETURNING ${columns}`.pipe(Effect.flatMap(decodeMessages))
      const row = rows[0]
      if (row === undefined) return yield* Effect.dieMessage("an insert returned no message")
      return toMessage(row)
    }, Effect.orDie)

    /** The grant's messages whose metadata holds `key: value`, newest first. */
    const byMetadata = Effect.fn("MailSimulatorStore.byMetadata")(function* (grantId: string, key: string, value: string, limit: number) {
      const rows = yield* sql`SELECT ${columns} FROM mail_sim_messages
        WHERE grant_id = ${grantId} AND metadata::jsonb ->> ${key} = ${value}
        ORDER BY date DESC, id LIMIT ${limit}`.pipe(Effect.flatMap(decodeMessages))
      return rows.map(toMessage)
    }, Effect.orDie)

    const message = Effect.fn("MailSimulatorStore.message")(function* (messageId: string) {
      const rows = yield* sql`SELECT ${columns} FROM mail_sim_messages WHERE id = ${messageId}`.pipe(Effect.flatMap(decodeMessages))
      return Option.fromNullable(rows[0]).pipe(Option.map(toMessage))
    }, Effect.orDie)

    /** Every message a grant sent (or every grant's), oldest first: what tests count. */
    const messages = Effect.fn("MailSimulatorStore.messages")(function* (grantId?: string) {
      const where = grantId === undefined ? sql`TRUE` : sql`grant_id = ${grantId}`
      const rows = yield* sql`SELECT ${columns} FROM mail_sim_messages WHERE ${where} ORDER BY date, id`.pipe(
        Effect.flatMap(decodeMessages)
      )
      return rows.map(toMessage)
    }, Effect.orDie)

    /** Records a notification about a message we sent, happening at `at` (now, or later for a scripted reply). Once per type and message. */
    const notify = Effect.fn("MailSimulatorStore.notify")(
      function* (seed: string, type: NotificationType, sent: Message, detail: string, at: Date) {
        yield* sql`
          INSERT INTO mail_sim_notifications (id, grant_id, type, message_id, thread_id, address, detail, at)
          VALUES (substr(md5(${seed}::text || ':e:' || ${type}::text || ':' || ${sent.id}::text), 1, 26), ${sent.grant_id}, ${type}, ${sent.id},
            ${sent.thread_id}, ${sent.to[0]?.email ?? ""}, ${detail}, ${at})
          ON CONFLICT (id) DO NOTHING`
      },
      Effect.orDie
    )

    /**
     * The grant's notifications that have happened by `now`, after the cursor, in (time, arrival) order.
     * A cursor is `<epoch ms>.<arrival>` of the last one read: a notification is never stamped before
     * the moment it is recorded, so none lands behind a cursor already handed out.
     */
    const notifications = Effect.fn("MailSimulatorStore.notifications")(
      function* (grantId: string, after: NotificationCursor, now: Date, limit: number) {
        const rows = yield* sql`
          SELECT seq::text AS seq, id, grant_id, type, message_id, thread_id, address, detail, at
          FROM mail_sim_notifications
          WHERE grant_id = ${grantId} AND at <= ${now} AND (at, seq) > (${new Date(after.at)}, ${after.seq})
          ORDER BY at, seq LIMIT ${limit}`.pipe(Effect.flatMap(decodeNotifications))
        const last = rows.at(-1)
        return {
          data: rows.map(toNotification),
          cursor: last === undefined ? after : { at: last.at.getTime(), seq: last.seq }
        }
      },
      Effect.orDie
    )

    return { usage, insert, byMetadata, message, messages, notify, notifications }
  })
}) {}

import { HttpApiSchema } from "@effect/platform"
import { Effect, ParseResult, Schema } from "effect"
import { characters, leading } from "../Length.ts"
import { oneLine } from "../OneLine.ts"

export const MAILBOX_NAME_MAX = 100
const BLANK = "must not be blank: recipients see it beside the address"

/** Decoding trims: " Ventas " is stored as "Ventas". The messages say what is wrong, for the caller to name the field. */
export const MailboxName = Schema.Trim.pipe(
  Schema.filter((name) => name !== "", { message: () => BLANK }),
  Schema.filter((name) =>
    characters(name) <= MAILBOX_NAME_MAX || `must be at most ${MAILBOX_NAME_MAX} characters, not ${characters(name)}`
  ),
  oneLine("must not hold control characters (line breaks, tabs)"),
  Schema.brand("MailboxName")
).annotations({
  identifier: "MailboxName",
  description:
    `The sender's name recipients see beside a mailbox's address: 1 to ${MAILBOX_NAME_MAX} characters with at least one visible character and no control characters, without leading or trailing spaces`
})
export type MailboxName = typeof MailboxName.Type

export class MailboxNameInvalid extends Schema.TaggedError<MailboxNameInvalid>()(
  "MailboxNameInvalid",
  {
    name: Schema.String,
    reason: Schema.String.annotations({ description: "What is wrong with the name, for the caller to name its field" }),
    message: Schema.String
  },
  HttpApiSchema.annotations({ status: 422 })
) {}

/** The name as a MailboxName, or MailboxNameInvalid saying why. */
export const decodeMailboxName = (name: string) =>
  Schema.decodeUnknown(MailboxName)(name).pipe(
    Effect.mapError((error) => {
      const reason = ParseResult.ArrayFormatter.formatErrorSync(error)[0]?.message ?? BLANK
      return new MailboxNameInvalid({
        name: leading(name, MAILBOX_NAME_MAX),
        reason,
        message: `a mailbox's display name ${reason}`
      })
    })
  )

import { Schema } from "effect"

// C0, DEL and C1; the line and paragraph separators; the bidirectional controls (U+061C, U+200E, U+200F,
// U+202A–U+202E, U+2066–U+2069), which show text in another order than it reads ("txt.exe" as "exe.txt")
const CONTROLS = "[\\p{Cc}\\u2028\\u2029\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]"
const CONTROL = new RegExp(CONTROLS, "u")
const EVERY_CONTROL = new RegExp(CONTROLS, "gu")

/**
 * Whether the text holds a control character (a tab, a line break, DEL, U+0080–U+009F, U+2028, U+2029) or a
 * direction mark or override: then it is not one line of text that reads as it shows.
 */
export const hasControlCharacter = (text: string) => CONTROL.test(text)

/** The text with each such character written as its escape (`\\u202e`): a message may quote what it was given. */
export const printable = (text: string) => text.replace(EVERY_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** The string refused, saying `message`, when it holds a control character. */
export const oneLine = (message: string) => <A extends string, I, R>(self: Schema.Schema<A, I, R>) =>
  self.pipe(Schema.filter((text) => !hasControlCharacter(text), { message: () => message }))

import { Schema } from "effect"

const CONTROL = /\p{Cc}/u

/** Whether the text holds a control character (a tab, a line break, DEL, U+0080–U+009F): then it is not one line of text. */
export const hasControlCharacter = (text: string) => CONTROL.test(text)

/** The string refused, saying `message`, when it holds a control character. */
export const oneLine = (message: string) => <A extends string, I, R>(self: Schema.Schema<A, I, R>) =>
  self.pipe(Schema.filter((text) => !hasControlCharacter(text), { message: () => message }))

import type { Effect } from "effect"
import { Console } from "effect"

const ANSI = /\x1b\[[0-9;]*m/g

const plain = (tty: boolean | undefined) => (args: ReadonlyArray<unknown>) =>
  tty === true ? args : args.map((arg) => typeof arg === "string" ? arg.replace(ANSI, "") : arg)

/** Help and errors keep their colours on a terminal and lose them in a pipe or a file. */
export const plainWhenPiped = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Console.consoleWith((console) => {
    const out = plain(process.stdout.isTTY)
    const err = plain(process.stderr.isTTY)
    return Console.withConsole(effect, {
      ...console,
      log: (...args) => console.log(...out(args)),
      error: (...args) => console.error(...err(args))
    })
  })

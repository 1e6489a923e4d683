import { ValidationError } from "@effect/cli"
import { Cause, ConfigError, Console, Data, Effect, Option } from "effect"
import { printable } from "../../schema/OneLine.ts"
import type { WorkspaceNotFound } from "../../services/workspace/Workspaces.ts"

/** A command that ran and did not succeed: its message is for a person, its code for a script. */
export class CommandFailed extends Data.TaggedError("CommandFailed")<{ readonly message: string; readonly exitCode: number }> {}

/** An error of a service, ending the command with its own message (exit 1). */
export const failed = (error: { readonly message: string }) => new CommandFailed({ message: error.message, exitCode: 1 })

const isWorkspaceNotFound = <E extends { readonly _tag: string }>(error: E): error is Extract<E, WorkspaceNotFound> =>
  error._tag === "WorkspaceNotFound"

const noSuchWorkspace = (error: { readonly message: string }) =>
  new CommandFailed({ message: `${error.message} (brein workspaces list shows them)`, exitCode: 1 })

/** A workspace named on the command line that does not exist: said with where to see the names (exit 1), by every command alike. */
export const namedWorkspace = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(effect, isWorkspaceNotFound, (error) => noSuchWorkspace(error))

/** Any error of a service as the command's failure, in its own words (exit 1); a missing workspace as `namedWorkspace` says it. */
export const failedCommand = <A, E extends { readonly _tag: string; readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.mapError(effect, (error) => isWorkspaceNotFound(error) ? noSuchWorkspace(error) : failed(error))

const setExitCode = (code: number) => Effect.sync(() => void (process.exitCode = code))

/** A setting that is wrong, named: `BREIN_X: Expected an integer value but received "abc"`, or the setting's own message if it names itself. */
const configMessage = (error: ConfigError.ConfigError): string => {
  switch (error._op) {
    case "And":
    case "Or":
      return `${configMessage(error.left)}; ${configMessage(error.right)}`
    default: {
      const name = error.path.join(".")
      return name === "" || error.message.includes(name) ? error.message : `${name}: ${error.message}`
    }
  }
}

const messageOf = (error: unknown): string => {
  if (typeof error !== "object" || error === null) return String(error)
  if (ConfigError.isConfigError(error)) return configMessage(error)
  const message = "message" in error && typeof error.message === "string" && error.message !== ""
    ? error.message
    : "_tag" in error
    ? String(error._tag)
    : String(error)
  const cause = "cause" in error ? error.cause : undefined
  const because = cause === undefined || cause === null ? "" : messageOf(cause)
  return because === "" || message.includes(because) ? message : `${message}: ${because}`
}

const firstLine = (text: string) => text.split("\n").map((line) => line.trim()).find((line) => line !== "") ?? "failed"

/**
 * How every command ends when it does not succeed: one line on stderr and exit code 1, or 2 when the
 * command line itself was wrong (@effect/cli has printed why). Never a stack trace; LOG_LEVEL=Debug shows it.
 * A control character the line quotes (from an argument) is written as its escape: none reaches the terminal.
 */
export const reportFailure = (cause: Cause.Cause<unknown>) => {
  if (Cause.isInterruptedOnly(cause)) return Effect.void
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && ValidationError.isValidationError(failure.value)) return setExitCode(2)
  const error = Option.getOrElse(failure, () => Cause.squash(cause))
  const code = error instanceof CommandFailed ? error.exitCode : 1
  return Effect.logDebug("command failed", cause).pipe(
    Effect.zipRight(Console.error(`brein: ${printable(firstLine(messageOf(error)))}`)),
    Effect.zipRight(setExitCode(code))
  )
}

export const exitWith = setExitCode

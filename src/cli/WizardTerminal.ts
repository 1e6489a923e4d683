import { Terminal } from "@effect/platform"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Effect, Exit, Fiber, Layer, Mailbox } from "effect"
import { CommandFailed } from "./Failure.ts"
import { frameInOwnWords } from "./OwnWords.ts"
import { stdinEnded } from "./StdinEnded.ts"

const inputEnded = new CommandFailed({
  message:
    "the input ended before --wizard's questions were answered: the wizard needs a terminal (or give the command its flags; --help lists them)",
  exitCode: 2
})

/** The keys a prompt reads, ending when stdin ends: keys typed before the end are still read first. */
const untilInputEnds = (keys: Mailbox.ReadonlyMailbox<Terminal.UserInput>) =>
  Effect.gen(function* () {
    const read = yield* Mailbox.make<Terminal.UserInput>()
    // a batch taken is always passed on: the forwarding stops only while it waits for keys
    const forwarding = yield* Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(restore(keys.takeAll), ([batch, done]) => Effect.as(read.offerAll(batch), done))
    ).pipe(Effect.repeat({ until: (done) => done }), Effect.zipRight(read.end), Effect.forkScoped)
    yield* stdinEnded.pipe(
      Effect.zipRight(Fiber.interrupt(forwarding)),
      Effect.zipRight(keys.clear),
      Effect.flatMap((rest) => read.offerAll(rest)),
      // a defect, not a failure: @effect/cli takes any failure of a prompt for a quit, which exits 0
      Effect.zipRight(read.done(Exit.die(inputEnded))),
      Effect.forkScoped
    )
    return read
  })

/**
 * Node's terminal, whose prompts (the --wizard of every command) end with exit 2 when stdin ends instead of
 * waiting forever, and ask in our own words, as the help page does (`--workspace NAME`, its description, never
 * "A user-defined piece of text.").
 */
export const WizardTerminal = Layer.scoped(
  Terminal.Terminal,
  Effect.map(
    NodeTerminal.make(),
    (terminal) =>
      Terminal.Terminal.of({
        ...terminal,
        readInput: Effect.flatMap(terminal.readInput, untilInputEnds),
        display: (text) => terminal.display(frameInOwnWords(text))
      })
  )
)

import { Console, Effect, Option, Redacted, Schema } from "effect"
import { Plan } from "../../schema/tools/Definition.ts"
import { DEMO_WORKSPACE, Workspaces } from "../../services/workspace/Workspaces.ts"
import { type Flags, UsageError } from "./Args.ts"

export const keysCreate = (flags: Flags) =>
  Effect.gen(function* () {
    const plan = yield* Option.match(Option.fromNullable(flags["plan"]), {
      onNone: () => Effect.succeed(Option.none<Plan>()),
      onSome: (value) =>
        Schema.decodeUnknown(Plan)(value).pipe(
          Effect.map(Option.some),
          Effect.mapError(() => new UsageError({ message: `--plan must be free or paid, not "${value}"` }))
        )
    })
    const workspaces = yield* Workspaces
    const issued = yield* workspaces.issueKey({ workspace: flags["workspace"] ?? DEMO_WORKSPACE, plan })
    yield* Effect.logInfo(`created a key for workspace "${issued.workspace.name}" (plan ${issued.workspace.plan})`)
    yield* Console.log(Redacted.value(issued.key))
  })

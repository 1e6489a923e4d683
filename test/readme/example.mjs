import { NodeRuntime } from "@effect/platform-node"
import * as Brein from "brein"
import { Console, Effect, Schema } from "effect"

const greeting = Brein.Tool.action({
  id: "hello.greeting.make",
  family: "hello",
  label: "Saludo",
  description: "Greets someone by name",
  plan: "free",
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  cost: { kind: "free" },
  level: 0,
  stages: [],
  input: Schema.Struct({ name: Schema.String }),
  output: Schema.Struct({ greeting: Schema.String }),
  handler: ({ name }) => Effect.succeed({ greeting: `Hola, ${name}` })
})

const Hello = Brein.Tool.connector({
  id: "hello",
  label: "Hello",
  plan: "free",
  requiresConnection: false,
  tools: [greeting]
})

const program = Effect.gen(function* () {
  const workspaces = yield* Brein.Workspaces
  const executor = yield* Brein.Executor
  const principal = yield* workspaces.inProcess("my-app")
  const response = yield* executor.call("hello.greeting.make", { name: "Ada" }, { surface: "library", principal })
  yield* Console.log(JSON.stringify(response.data), response.meta.audit_status)
})

program.pipe(Effect.provide(Brein.layer([Hello])), NodeRuntime.runMain)

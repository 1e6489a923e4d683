import { Clock, Effect } from "effect"
import { pureHints, ReflectInput, ReflectOutput, TimestampNowInput, TimestampNowOutput } from "../../schema/connectors/Core.ts"
import { connector } from "../tools/Source.ts"
import { action } from "../tools/Tool.ts"

// Building a DateTimeFormat costs ~170 µs; a zone's formatter is reused for every call.
const formatters = new Map<string, Intl.DateTimeFormat>()
const formatterOf = (timeZone: string) => {
  const known = formatters.get(timeZone)
  if (known !== undefined) return known
  const made = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
  formatters.set(timeZone, made)
  return made
}

const offset = (epochMs: number, timeZone: string) => {
  const name = formatterOf(timeZone)
    .formatToParts(epochMs)
    .find((part) => part.type === "timeZoneName")?.value ?? "GMT"
  const match = /GMT([+-]\d{2}):?(\d{2})?/.exec(name)
  return match === null ? { text: "Z", minutes: 0 } : {
    text: `${match[1]}:${match[2] ?? "00"}`,
    minutes: Number(match[1]) * 60 + Math.sign(Number(match[1]) || 1) * Number(match[2] ?? 0)
  }
}

export const isoInZone = (epochMs: number, timeZone: string) => {
  if (timeZone === "UTC") return new Date(epochMs).toISOString()
  const { text, minutes } = offset(epochMs, timeZone)
  return new Date(epochMs + minutes * 60_000).toISOString().replace("Z", text === "+00:00" ? "Z" : text)
}

export const timestampNow = action({
  id: "core.timestamp.now",
  family: "core",
  label: "Hora actual",
  description: "The current instant, in ISO-8601 (optionally in an IANA time zone) and as epoch milliseconds.",
  plan: "free",
  hints: pureHints,
  cost: { kind: "free" },
  level: 0,
  stages: [],
  input: TimestampNowInput,
  output: TimestampNowOutput,
  handler: (input) =>
    Effect.map(Clock.currentTimeMillis, (epochMs) => {
      const timezone = input.timezone ?? "UTC"
      return { iso: isoInZone(epochMs, timezone), epochMs, timezone }
    })
})

export const messageReflect = action({
  id: "echo.message.reflect",
  family: "echo",
  label: "Eco",
  description: "Returns the message it is given. Useful to test a client's wiring.",
  plan: "free",
  hints: pureHints,
  cost: { kind: "free" },
  level: 0,
  stages: [],
  input: ReflectInput,
  output: ReflectOutput,
  handler: (input) => Effect.succeed({ message: input.message })
})

export const CoreConnector = connector({ id: "core", label: "Core", plan: "free", requiresConnection: false, tools: [timestampNow] })
export const EchoConnector = connector({ id: "echo", label: "Echo", plan: "free", requiresConnection: false, tools: [messageReflect] })

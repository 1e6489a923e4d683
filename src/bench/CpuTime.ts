import { FileSystem } from "@effect/platform"
import { Effect, Option } from "effect"

const TICKS_PER_SECOND = 100

/**
 * CPU time (user + system, ms) a process has used so far, from /proc; none off Linux. Per request,
 * it says what a server costs even when other work on the box steals its cores.
 */
export const cpuTimeMs = Effect.fn("Bench.cpuTimeMs")((pid: number) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(`/proc/${pid}/stat`)).pipe(
    Effect.map((stat) => {
      // the command name in parentheses may hold spaces: count fields after its closing parenthesis
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      const ticks = Number(fields[11]) + Number(fields[12])
      return Number.isFinite(ticks) ? Option.some((ticks * 1000) / TICKS_PER_SECOND) : Option.none<number>()
    }),
    Effect.orElseSucceed(() => Option.none<number>())
  )
)

/** CPU time (ms) of this process's children that have exited and been waited for, with their own children. */
export const exitedChildrenCpuTimeMs = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(`/proc/${process.pid}/stat`)).pipe(
  Effect.map((stat) => {
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const ticks = Number(fields[13]) + Number(fields[14])
    return Number.isFinite(ticks) ? Option.some((ticks * 1000) / TICKS_PER_SECOND) : Option.none<number>()
  }),
  Effect.orElseSucceed(() => Option.none<number>())
)

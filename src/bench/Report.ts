import { Console, Effect, Option } from "effect"
import type { Figures } from "./Load.ts"
import type { ProfileSummary } from "./Profile.ts"

export interface Goals {
  /** brein's requests/s at least this fraction of the baseline's */
  readonly throughput: number
  /** brein's p99 at most this multiple of the baseline's, when set */
  readonly p99?: number
}

export interface Measured extends Figures {
  /** the server process's CPU time per answered request, in µs */
  readonly cpuUsPerRequest: Option.Option<number>
}

const pad = (text: string, width: number) => text.padStart(width)
const fixed = (value: number, digits = 0) => value.toFixed(digits)

export const verdicts = (brein: Figures, baseline: Figures, goals: Goals) => {
  const throughput = brein.rps / baseline.rps
  const p99 = brein.p99 / Math.max(baseline.p99, 1)
  return {
    throughput,
    p99,
    throughputMet: throughput >= goals.throughput,
    p99Met: goals.p99 === undefined || p99 <= goals.p99
  }
}

export const printComparison = (
  title: string,
  rows: { readonly brein: Measured; readonly baseline: Measured; readonly breinLabel: string; readonly baselineLabel: string },
  goals: Goals,
  setup: string
) => {
  const v = verdicts(rows.brein, rows.baseline, goals)
  const width = Math.max(rows.breinLabel.length, rows.baselineLabel.length)
  const cpu = (f: Measured) => Option.match(f.cpuUsPerRequest, { onNone: () => "n/a", onSome: (us) => fixed(us) })
  const line = (label: string, f: Measured) =>
    `  ${label.padEnd(width)} ${pad(fixed(f.rps), 8)} ${pad(fixed(f.p50), 7)} ${pad(fixed(f.p99), 7)} ${pad(String(f.ok), 9)} ${
      pad(String(f.failed), 7)
    } ${pad(cpu(f), 11)}`
  const met = (ok: boolean) => (ok ? "met" : "MISSED")
  return Console.log(
    [
      "",
      `${title}  (${setup})`,
      "",
      `  ${"".padEnd(width)} ${pad("req/s", 8)} ${pad("p50 ms", 7)} ${pad("p99 ms", 7)} ${pad("2xx", 9)} ${pad("failed", 7)} ${
        pad("CPU µs/req", 11)
      }`,
      line(rows.baselineLabel, rows.baseline),
      line(rows.breinLabel, rows.brein),
      "",
      `  throughput brein/baseline = ${fixed(v.throughput, 2)}×  (goal ≥ ${goals.throughput}×: ${met(v.throughputMet)})`,
      `  p99 brein/baseline        = ${fixed(v.p99, 2)}×${goals.p99 === undefined ? "" : `  (goal ≤ ${goals.p99}×: ${met(v.p99Met)})`}`,
      ...Option.match(Option.all([rows.brein.cpuUsPerRequest, rows.baseline.cpuUsPerRequest]), {
        onNone: () => [],
        onSome: ([brein, baseline]) => [`  server CPU per request brein/baseline = ${fixed(brein / Math.max(baseline, 1), 2)}×`]
      })
    ].join("\n")
  )
}

const ratio = (brein: Option.Option<number>, baseline: Option.Option<number>) =>
  Option.match(Option.all([brein, baseline]), { onNone: () => "n/a", onSome: ([b, r]) => `${fixed(b / Math.max(r, 1), 2)}×` })

/** Every round's ratios: how far apart they are is the noise of the run. */
export const printRounds = (rounds: ReadonlyArray<{ readonly baseline: Measured; readonly brein: Measured }>, goals: Goals) => {
  const rows = rounds.map(({ baseline, brein }, i) => {
    const v = verdicts(brein, baseline, goals)
    return `    round ${i + 1}: throughput ${fixed(v.throughput, 2)}×  p99 ${fixed(v.p99, 2)}×  CPU/req ${
      ratio(brein.cpuUsPerRequest, baseline.cpuUsPerRequest)
    }` +
      `  (baseline ${fixed(baseline.rps)} req/s, brein ${fixed(brein.rps)} req/s)`
  })
  return rounds.length < 2
    ? Effect.void
    : Console.log(["", `  ${rounds.length} rounds, baseline then brein each; the table shows the median round:`, ...rows].join("\n"))
}

export const printProfile = (summary: ProfileSummary) => {
  const list = (shares: ProfileSummary["self"]) => shares.map((s) => `    ${pad(fixed(s.percent, 1), 5)}%  ${s.name}`)
  return Console.log(
    [
      "",
      `brein CPU profile over its measured load (${summary.samples} samples, ${
        fixed((100 * summary.busy) / Math.max(summary.samples, 1), 0)
      }% busy)`,
      "  busy time by kind of work (self time, % of the busy samples):",
      ...list(summary.buckets),
      "  by area (self time):",
      ...list(summary.areas),
      "  hottest frames (self time):",
      ...list(summary.self),
      "  heaviest frames (inclusive time):",
      ...list(summary.inclusive),
      "  (brein frames are placed in tsx's transpiled output, hence line 1; the raw profile: BENCH_PROFILE_DIR)"
    ].join("\n")
  )
}

export const printAudit = (audit: { readonly intact: boolean; readonly verdict: string }) =>
  Effect.zipRight(Console.log(""), Console.log(`brein audit verify: ${audit.verdict}`))

import type { CommandExecutor, FileSystem, HttpClient } from "@effect/platform"
import { Console, type Duration, type Effect, type Scope } from "effect"

export interface AttackSettings {
  /** the run's PostgreSQL (embedded or DATABASE_URL): each attack creates its own database on it */
  readonly adminUrl: string
  /** small counts, for iterating */
  readonly quick: boolean
  /** how long the bounded load runs */
  readonly duration: Duration.Duration
  /** requests per second of the bounded load */
  readonly rate: number
}

export type Requirements = FileSystem.FileSystem | CommandExecutor.CommandExecutor | HttpClient.HttpClient | Scope.Scope

export interface Attack {
  readonly name: string
  readonly run: (settings: AttackSettings) => Effect.Effect<void, unknown, Requirements>
}

/** One result line: "<attack>: <attempts> sent, <outcome>" (or what was done instead of "<attempts> sent"). */
export const report = (attack: string, attempts: number | string, outcome: string) =>
  Console.log(`${attack}: ${typeof attempts === "number" ? `${attempts.toLocaleString("en")} sent` : attempts}, ${outcome}`)

export const range = (n: number) => Array.from({ length: n }, (_, i) => i)

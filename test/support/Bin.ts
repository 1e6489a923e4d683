import { Command } from "@effect/platform"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** The `brein` executable as npm installs it (bin/brein.js loading the bundled dist/bin/brein.js). */
export const breinBin = fileURLToPath(new URL("../../bin/brein.js", import.meta.url))

/** `brein ARGS` run the way a user runs it: plain node on the built bin, from the repository root. */
export const breinCommand = (...args: Array<string>) =>
  Command.make(process.execPath, breinBin, ...args).pipe(Command.workingDirectory(root))

/** vitest globalSetup: bundles the command line from the current sources once per run (≈ 2 s). */
export default function setup() {
  execFileSync(process.execPath, ["scripts/bundle.mjs"], { cwd: root, stdio: "inherit" })
}

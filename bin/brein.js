#!/usr/bin/env node
import { existsSync } from "node:fs"

const program = new URL("../dist/bin/brein.js", import.meta.url)
if (existsSync(program)) {
  await import(program.href)
} else {
  process.stderr.write("brein is not built in this checkout: run `npm run build` (npm ci does it) and try again.\n")
  process.exitCode = 1
}

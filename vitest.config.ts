import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/Bin.ts", "test/support/globalSetup.ts"],
    pool: "forks",
    hookTimeout: 60_000,
    testTimeout: 30_000,
    teardownTimeout: 30_000,
    // A passing test prints nothing; a failing one shows what it logged. With LOG_LEVEL set, everything shows.
    silent: process.env["LOG_LEVEL"] === undefined ? "passed-only" : false
  }
})

import { assert, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { TestClient, rawExecute, HttpTest, issueKey } from "./TestServer.ts"

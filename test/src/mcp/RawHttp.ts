import { Effect } from "effect"
import { request } from "node:http"
import { mcpUrl } from "./McpTestServer.ts"

export interface RawAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly text: string
}

export interface RawRequest {
  readonly method: string
  readonly path: string
  readonly headers?: Readonly<Record<string, string>>
  /** Sent as is (with a content-length), or chunked in 64 KiB pieces. */
  readonly body?: string
  readonly chunked?: boolean
}

/** One request with full control of its headers (Host, Origin, chunking), on the test server's port. */
export const raw = (options: RawRequest) =>
  Effect.flatMap(mcpUrl, (url) =>
    Effect.async<RawAnswer, Error>((resume) => {
      const body = options.body === undefined ? undefined : Buffer.from(options.body)
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          method: options.method,
          path: options.path,
          headers: {
            ...(body !== undefined && options.chunked !== true ? { "content-length": String(body.length) } : {}),
            ...options.headers
          }
        },
        (response) => {
          const chunks: Array<Buffer> = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("end", () =>
            resume(
              Effect.succeed({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString("utf8") })
            ))
        }
      )
      req.on("error", (error) => resume(Effect.fail(error)))
      if (body !== undefined && options.chunked === true) {
        for (let at = 0; at < body.length; at += 64 * 1024) {
          req.write(body.subarray(at, at + 64 * 1024))
        }
      } else if (body !== undefined) req.write(body)
      req.end()
    }))

/** The JSON-RPC message of an /mcp answer, sent as JSON or as one event. */
export const rpcOf = (answer: RawAnswer) => {
  const data = answer.text.split("\n").find((line) => line.startsWith("data: "))
  return JSON.parse(data === undefined ? answer.text : data.slice(6)) as {
    readonly error?: { readonly code: number; readonly message: string; readonly data?: Record<string, unknown> }
    readonly result?: { readonly isError?: boolean; readonly content: ReadonlyArray<{ readonly text: string }> }
  }
}

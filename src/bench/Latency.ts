import http from "node:http"

/** Sample latencies (ms): the p50, p99 and mean a bench prints beside its baseline's. */
export interface Latencies {
  readonly p50: number
  readonly p99: number
  readonly mean: number
}

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0

export const latencies = (samples: ReadonlyArray<number>): Latencies => {
  const sorted = [...samples].sort((a, b) => a - b)
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length }
}

/** One line of a latency table: the label, then p50, p99 and mean in ms. */
export const latencyRow = (label: string, s: Latencies, width = 48) =>
  `${label.padEnd(width)} p50 ${s.p50.toFixed(2).padStart(7)} ms   p99 ${s.p99.toFixed(2).padStart(7)} ms   mean ${
    s.mean.toFixed(2).padStart(7)
  } ms`

/**
 * Posts a tool call to a local brein over one kept-alive socket (the agent's); answers the body, or
 * rejects with the status and the start of the body when the answer is not a 200 that `accept` takes.
 */
export const toolPoster =
  (port: number, key: string, agent: http.Agent) => (tool: string, body: string, accept: (text: string) => boolean = () => true) =>
    new Promise<string>((resolve, reject) => {
      const request = http.request(`http://127.0.0.1:${port}/api/v1/tools/${tool}/execute`, {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), authorization: `Bearer ${key}` }
      }, (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          if (response.statusCode === 200 && accept(text)) resolve(text)
          else reject(new Error(`${tool} answered ${response.statusCode}: ${text.slice(0, 300)}`))
        })
        response.on("error", reject)
      })
      request.on("error", reject)
      request.end(body)
    })

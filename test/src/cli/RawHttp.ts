import { Effect } from "effect"
import * as Net from "node:net"

export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
}

const parseHead = (head: string) => {
  const [statusLine = "", ...lines] = head.split("\r\n")
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return { status: Number.parseInt(statusLine.split(" ")[1] ?? "", 10), headers }
}

/** The length of a chunked body at the start of `buffer`, or -1 while it is incomplete. */
const chunkedLength = (buffer: Buffer) => {
  let at = 0
  while (true) {
    const end = buffer.indexOf("\r\n", at)
    if (end < 0) return -1
    const size = Number.parseInt(buffer.subarray(at, end).toString("latin1"), 16)
    const next = end + 2 + size + 2
    if (next > buffer.length) return -1
    at = next
    if (size === 0) return at
  }
}

/**
 * One client socket that speaks HTTP/1.1 byte by byte: it can send part of a request, pipeline
 * requests and keep a socket idle, and it records every answer (and each `100 Continue`) it reads.
 */
export class RawSocket {
  readonly answers: Array<Answer> = []
  continues = 0
  closed = false
  private buffer = Buffer.alloc(0)

  private constructor(private readonly socket: Net.Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk])
      this.parse()
    })
    socket.on("error", () => undefined)
    socket.on("close", () => void (this.closed = true))
  }

  static open(port: number) {
    return Effect.async<RawSocket>((resume) => {
      const socket = Net.connect(port, "127.0.0.1", () => resume(Effect.succeed(new RawSocket(socket))))
    })
  }

  send(text: string) {
    return Effect.async<void>((resume) => void this.socket.write(text, () => resume(Effect.void)))
  }

  destroy() {
    return Effect.sync(() => this.socket.destroy())
  }

  private parse() {
    while (true) {
      const end = this.buffer.indexOf("\r\n\r\n")
      if (end < 0) return
      const answer = parseHead(this.buffer.subarray(0, end).toString("latin1"))
      const rest = this.buffer.subarray(end + 4)
      if (answer.status === 100) {
        this.continues++
        this.buffer = rest
        continue
      }
      const length = answer.headers["transfer-encoding"] === "chunked"
        ? chunkedLength(rest)
        : Number.parseInt(answer.headers["content-length"] ?? "0", 10)
      if (length < 0 || rest.length < length) return
      this.answers.push(answer)
      this.buffer = rest.subarray(length)
    }
  }
}

/** True once nothing accepts connections on `port` any more. */
export const refuses = (port: number) =>
  Effect.async<boolean>((resume) => {
    const socket = Net.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(false))
    })
    socket.once("error", () => resume(Effect.succeed(true)))
  })

/** A request's head; `Expect: 100-continue` lets the client know the server has read it before the body follows. */
export const requestHead = (method: string, path: string, headers: Readonly<Record<string, string>>) =>
  `${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`

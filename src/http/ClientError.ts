import type { Server } from "node:http"
import type { Duplex } from "node:stream"
import { BadRequest } from "../../schema/Errors.ts"
import { errorAnswer } from "./Gate.ts"

interface Refusal {
  readonly status: number
  readonly reason: string
  readonly message: string
}

/** Node's parser's codes, said as a client can act on them; the statuses are the ones Node answers itself. */
const refusalOf = (code: string | undefined): Refusal => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, reason: "Request Header Fields Too Large", message: "the request's headers are too large" }
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { status: 413, reason: "Payload Too Large", message: "the request's chunk extensions are too large" }
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, reason: "Request Timeout", message: "the request was not received in time" }
    default:
      return {
        status: 400,
        reason: "Bad Request",
        message: `the request is not HTTP/1.1 that can be read${code === undefined ? "" : ` (${code})`}`
      }
  }
}

/**
 * A request Node cannot parse (a malformed request line or header, headers too large, one not received
 * in time) never reaches a handler: Node answers it with an empty 400. Here it gets the API's JSON error
 * (`{"_tag":"BadRequest","message":…}`) with Node's status, and the connection is closed after it, as Node
 * closes it. A socket that is gone, or that has part of a response on it, is only closed.
 */
export const answerClientErrors = (server: Server) =>
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex & { readonly bytesWritten?: number }) => {
    if (error.code === "ECONNRESET" || !socket.writable || (socket.bytesWritten ?? 0) > 0) {
      socket.destroy()
      return
    }
    const refusal = refusalOf(error.code)
    const body = JSON.stringify(errorAnswer(new BadRequest({ message: refusal.message })).body)
    socket.end(
      `HTTP/1.1 ${refusal.status} ${refusal.reason}\r\ncontent-type: application/json\r\ncontent-length: ${
        Buffer.byteLength(body)
      }\r\nconnection: close\r\n\r\n${body}`
    )
  })

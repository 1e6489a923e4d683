import { isUtf8 } from "node:buffer"
import { Transform, type TransformCallback } from "node:stream"

const NEWLINE = 0x0a
const newline = Buffer.from([NEWLINE])

/** Why a line was not passed on: cut by the stream (too long, not UTF-8) or by the `check` it was given. */
export type Refusal<Checked> =
  | { readonly why: "too_long" }
  | { readonly why: "not_utf8" }
  | Checked

/**
 * stdin in whole lines of at most `maxBytes` (the newline not counted), each UTF-8 and passing `check`.
 * A longer line is dropped as it streams in, told once by `onRefused`, and the lines after it pass as
 * before: the SDK's reader, handed such a line, closed the connection and stopped reading stdin, so its
 * end never came. A line that is not UTF-8 is dropped and told too: the SDK would read each bad byte as
 * U+FFFD and run it. So is a line `check` refuses (the SDK drops a line that is not JSON without a word).
 */
export class BoundedLines<Checked> extends Transform {
  private parts: Array<Buffer> = []
  private bytes = 0
  private dropping = false

  constructor(
    private readonly maxBytes: number,
    private readonly check: (line: string) => Checked | undefined,
    private readonly onRefused: (refusal: Refusal<Checked>) => void
  ) {
    super()
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
    let start = 0
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start)
      this.collect(chunk.subarray(start, end === -1 ? chunk.length : end))
      if (end === -1) break
      if (!this.dropping) this.pass(Buffer.concat([...this.parts, newline]))
      this.parts = []
      this.bytes = 0
      this.dropping = false
      start = end + 1
    }
    callback()
  }

  private pass(line: Buffer) {
    if (!isUtf8(line)) return this.onRefused({ why: "not_utf8" })
    const refused = this.check(line.toString("utf8"))
    if (refused === undefined) this.push(line)
    else this.onRefused(refused)
  }

  private collect(piece: Buffer) {
    if (this.dropping) return
    this.bytes += piece.length
    if (this.bytes <= this.maxBytes) return void this.parts.push(piece)
    this.parts = []
    this.dropping = true
    this.onRefused({ why: "too_long" })
  }
}

/** A plain-text table: a header, one line per row, columns padded to their widest cell. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd()
  return [line(header), ...rows.map(line)].join("\n")
}

/** A timestamp to the minute, in UTC: what an operator reads in a listing. */
export const when = (date: Date | null) => date === null ? "-" : `${date.toISOString().slice(0, 16).replace("T", " ")}Z`

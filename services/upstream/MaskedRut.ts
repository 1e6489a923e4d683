/**
 * A RUT as logs and traces may show it: the last three digits of the body and the check digit, enough
 * to tell users apart while reading a log, never enough to name one (`***456-9`).
 */
export const maskRut = (rut: string): string => {
  const compact = rut.replace(/[.\s]/g, "").toUpperCase()
  const dash = compact.lastIndexOf("-")
  const body = dash < 0 ? compact.slice(0, -1) : compact.slice(0, dash)
  const dv = dash < 0 ? compact.slice(-1) : compact.slice(dash + 1)
  return `***${body.slice(-3)}-${dv}`
}

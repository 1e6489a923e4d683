const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i

/**
 * What failed authentications are counted against: an IPv4 address (also IPv4-mapped), or an IPv6
 * address's /64, since one host is usually handed a whole /64 and could rotate through it.
 */
export const sourceOf = (address: string | undefined): string => {
  if (address === undefined || address === "") return "unknown"
  const mapped = MAPPED_V4.exec(address)
  if (mapped?.[1] !== undefined) return mapped[1]
  if (!address.includes(":")) return address
  const [head = "", tail] = address.split("%")[0]?.split("::") ?? []
  const left = head === "" ? [] : head.split(":")
  const right = tail === undefined || tail === "" ? [] : tail.split(":")
  const groups = tail === undefined
    ? left
    : [...left, ...Array.from({ length: Math.max(0, 8 - left.length - right.length) }, () => "0"), ...right]
  return `${groups.slice(0, 4).map((group) => group.toLowerCase().replace(/^0+(?=.)/, "")).join(":")}::/64`
}

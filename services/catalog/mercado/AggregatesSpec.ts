export const FAMILY = "mercado"

const readHints = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const

/** What the five aggregates share: read cost (the hourly ceiling), level 0, answers that sum figures. */
export const common = { family: FAMILY, plan: "free", hints: readHints, cost: { kind: "read" }, level: 0, aggregate: true } as const

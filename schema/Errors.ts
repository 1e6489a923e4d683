/**
 * Every typed error a caller can meet, by family: each is a tagged Schema error with its HTTP status, and
 * `hint` / `next_actions` where the caller can do something about it.
 */
export * from "./errors/Access.ts"
export * from "./errors/Budget.ts"
export * from "./errors/Guidance.ts"
export * from "./errors/Request.ts"
export * from "./errors/Sequences.ts"
export * from "./errors/Service.ts"

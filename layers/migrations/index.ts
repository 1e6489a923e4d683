import foundation from "./0001_foundation.ts"

export const migrations = {
  "0001_foundation": foundation
}

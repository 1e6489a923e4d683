import { Layer } from "effect"
import { Activation } from "../services/humans/Activation.ts"
import { Csrf } from "../services/humans/Csrf.ts"
import { Users } from "../services/humans/Users.ts"

/** The people of the workspaces, their sessions and CSRF tokens, and the activation they alone may take, audited (needs AuditKey and AuditStore). */
export const HumansLive = Layer.mergeAll(Users.Default, Csrf.Default, Activation.Default)

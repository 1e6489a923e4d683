import { Layer } from "effect"
import { Account } from "../services/budget/Account.ts"
import { Boards } from "../services/catalog/Boards.ts"
import { Owned } from "../services/catalog/empresas/Owned.ts"
import { Topics } from "../services/cerebro/Topics.ts"
import { SequencesLive } from "./Sequences.ts"

/** The services the Brein catalog's tools run on (workspace records, credits, reads). Needs SqlClient. */
export const CatalogLive = Layer.mergeAll(Account.Default, Owned.Default, Boards.Default, Topics.Default, SequencesLive)

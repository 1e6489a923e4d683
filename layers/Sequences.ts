import { Layer } from "effect"
import { Audience } from "../services/catalog/sequences/Audience.ts"
import { Mailboxes } from "../services/catalog/sequences/Mailboxes.ts"
import { Preflights } from "../services/catalog/sequences/Preflights.ts"
import { SequenceStore } from "../services/catalog/sequences/SequenceStore.ts"
import { Suppressions } from "../services/catalog/sequences/Suppressions.ts"
import { UnsubscribeLinks } from "../services/catalog/sequences/UnsubscribeLinks.ts"

/** The services of sequences: mailboxes, suppressions, the store of sequences and recipients, preflights, unsubscribe links. Needs SqlClient and AuditKey. */
export const SequencesLive = Layer.mergeAll(
  SequenceStore.Default,
  Mailboxes.Default,
  Suppressions.Default,
  Preflights.Default,
  Audience.Default,
  UnsubscribeLinks.Default
)

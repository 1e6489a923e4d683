import { catalog } from "../../tools/Source.ts"
import { FAMILY } from "./Access.ts"
import { sequenceCreate, sequenceUpdate } from "./EditTools.ts"
import { sequenceGet, sequencePreflight, sequencePreview } from "./ReadTools.ts"
import { sequenceRecipientsSet } from "./RecipientsTool.ts"

/** Secuencias: draft email sequences, their recipients, a per-recipient preview and the compliance preflight. No tool activates one. */
export const SecuenciasCatalog = catalog({
  family: FAMILY,
  tools: [sequenceCreate, sequenceUpdate, sequenceRecipientsSet, sequencePreview, sequenceGet, sequencePreflight]
})

import { CrmRecordsInput, LookupOutput, SaveOutput } from "../../../schema/catalog/Crm.ts"
import { catalog } from "../../tools/Source.ts"
import { action } from "../../tools/Tool.ts"
import { crmLookup } from "./CrmLookup.ts"
import { crmSave } from "./CrmSave.ts"

export const crmLookupTool = action({
  id: "crm_lookup",
  family: "crm",
  label: "Buscar en el CRM",
  description:
    "Which of these directory companies (co_…) and people (pe_…) the team's CRM already has: matched by brein_id, then by domain or tax id (companies) or revealed email (people), with the CRM record id and a reference. Up to 100 ids; unknown ids come back as not_found.",
  plan: "free",
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
  cost: { kind: "read" },
  level: 0,
  stages: ["prospectando", "con_lista"],
  input: CrmRecordsInput,
  output: LookupOutput,
  handler: crmLookup
})

export const crmSaveTool = action({
  id: "crm_save",
  family: "crm",
  label: "Guardar en el CRM",
  description:
    "Saves these directory companies (co_…) and people (pe_…) into the team's CRM (upsert by brein_id; people are linked to their company when it is in the CRM). Saving again changes nothing: each record comes back created, updated, unchanged, failed or not_found. A person's email is sent only if this workspace revealed it. Up to 100 ids.",
  plan: "free",
  hints: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
  cost: { kind: "read" },
  level: 1,
  stages: ["prospectando", "con_lista"],
  input: CrmRecordsInput,
  output: SaveOutput,
  handler: crmSave
})

export const CrmCatalog = catalog({ family: "crm", tools: [crmLookupTool, crmSaveTool] })

import { catalog } from "../../tools/Source.ts"
import { listGet, listSave } from "./ListTools.ts"
import { companyEnrich, peopleReveal } from "./Reveal.ts"
import { companiesSearch, companyGet, FAMILY, peopleSearch, personGet } from "./SearchTools.ts"

/** Empresas y personas: the directory of companies and people in Chile and Mexico, and the workspace's lists of them. */
export const EmpresasCatalog = catalog({
  family: FAMILY,
  tools: [companiesSearch, companyGet, peopleSearch, personGet, listSave, listGet, companyEnrich, peopleReveal]
})

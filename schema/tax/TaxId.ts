import { Schema } from "effect"
import { Rut } from "../upstream/Rut.ts"
import { Rfc } from "./Rfc.ts"

/** A company's tax id: a Chilean RUT (76123456-0, dots allowed) or a Mexican RFC (GFM010122DZ9), check digit verified. */
export const TaxId = Schema.Union(Rut, Rfc).annotations({
  identifier: "TaxId",
  description: "A Chilean RUT (76123456-0; 76.123.456-0 works too) or a Mexican RFC (GFM010122DZ9), with a valid check digit",
  message: () => ({
    message: "must be a RUT with a valid mod-11 check digit (76123456-0) or an RFC with a valid check character (GFM010122DZ9)",
    override: true
  })
})

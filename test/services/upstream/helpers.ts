import { DateTime, Effect, Redacted, Schema, TestClock } from "effect"
import type { InstitutionId } from "../../../schema/upstream/Banco.ts"
import type { Periodo, Perspectiva, RcvDocumento } from "../../../schema/upstream/Rcv.ts"
import { Rut } from "../../../schema/upstream/Rut.ts"
import type { BancoCredentials } from "../../../services/upstream/BancoUpstream.ts"
import type { SiiCredentials, SiiSession } from "../../../services/upstream/SiiUpstream.ts"

export const setClock = (iso: string) => TestClock.setTime(DateTime.toEpochMillis(DateTime.unsafeMake(iso)))

export const rut = (text: string): Rut => Schema.decodeSync(Rut)(text)

export const siiCredentials = (text: string, clave = "secreta-123"): SiiCredentials => ({
  rut: rut(text),
  clave: Redacted.make(clave)
})

export const bancoCredentials = (institution: InstitutionId, text: string, clave = "secreta-123"): BancoCredentials => ({
  institution,
  rut: rut(text),
  clave: Redacted.make(clave)
})

/** What a sync job does: resumen, then one detalle per type. */
export const syncPeriod = (session: SiiSession, periodo: Periodo, perspectiva: Perspectiva) =>
  Effect.gen(function* () {
    const resumen = yield* session.resumen(periodo, perspectiva)
    const docs: Array<RcvDocumento> = []
    for (const tipo of resumen.tipos) docs.push(...(yield* session.detalle(periodo, perspectiva, tipo.tipoDte)))
    return { resumen, docs }
  })

export const dmyToIso = (dmy: string) => `${dmy.slice(6, 10)}-${dmy.slice(3, 5)}-${dmy.slice(0, 2)}`

export const tagAndReason = (error: { readonly _tag: string }): readonly [string, unknown] => [
  error._tag,
  "reason" in error ? error.reason : undefined
]

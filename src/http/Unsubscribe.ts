import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { UnsubscribeLinkUnknown } from "../../schema/Errors.ts"
import { BreinApi } from "../../schema/http/Api.ts"
import type { UnsubscribePath } from "../../schema/http/Unsubscribe.ts"
import { ChangeAudit } from "../../services/audit/ChangeAudit.ts"
import { UnsubscribeLinks } from "../../services/catalog/sequences/UnsubscribeLinks.ts"
import { DispatchStore } from "../../services/sequences/DispatchStore.ts"

const page = (title: string, body: string) =>
  `<!doctype html>
<html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.6rem 1.2rem;cursor:pointer}</style>
</head><body>${body}</body></html>
`

// Nothing of the request is written into the pages: they are the same for every link.
const CONFIRM = page(
  "Darse de baja",
  `<h1>¿Dejar de recibir estos correos?</h1>
<p>Confirma y no te volveremos a escribir desde esta secuencia ni desde las demás de este remitente.</p>
<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Darme de baja</button></form>`
)
const DONE = page(
  "Listo",
  `<h1>Listo: te diste de baja</h1>
<p>No recibirás más correos de este remitente. Si fue un error, respóndele a quien te escribió.</p>`
)

type Path = typeof UnsubscribePath.Type

/**
 * A recipient's unsubscribe link: the page asks (opening a link must change nothing: mail scanners open
 * them all), the form's POST or a provider's one-click POST unsubscribes. Stopping the enrollment, the
 * suppression and the audit row commit together; a second POST changes nothing and answers the same.
 */
export const UnsubscribeLive = HttpApiBuilder.group(BreinApi, "unsubscribe", (handlers) =>
  Effect.gen(function* () {
    const links = yield* UnsubscribeLinks
    const store = yield* DispatchStore
    const changes = yield* ChangeAudit
    const known = (path: Path) =>
      Effect.filterOrFail(links.verify(path.sequence, path.person, path.token), (valid) => valid, () => UnsubscribeLinkUnknown.of())

    return handlers
      .handle("page", ({ path }) => Effect.as(known(path), CONFIRM))
      .handle("unsubscribe", ({ path }) =>
        Effect.gen(function* () {
          yield* known(path)
          const now = new Date(yield* Clock.currentTimeMillis)
          const done = yield* changes.audited(
            store.unsubscribe(path.sequence, path.person, now),
            Option.match({
              onNone: () => null,
              onSome: (result) =>
                result.changed
                  ? {
                    workspaceId: result.workspaceId,
                    principal: `recipient:${path.person}`,
                    surface: "http" as const,
                    toolId: "sequences.unsubscribe",
                    connectionId: null,
                    input: { sequence_id: path.sequence, person_id: path.person },
                    output: { address: result.email, reason: "unsubscribed" }
                  }
                  : null
            })
          )
          if (Option.isNone(done)) return yield* UnsubscribeLinkUnknown.of()
          return DONE
        }))
  }))

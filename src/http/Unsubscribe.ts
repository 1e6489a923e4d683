import { HttpApiBuilder } from "@effect/platform"
import { Cause, Clock, Effect, Option } from "effect"
import { UnsubscribeLinkUnknown, UnsubscribeUnavailable } from "../../schema/Errors.ts"
import { BreinApi } from "../../schema/http/Api.ts"
import type { UnsubscribePath } from "../../schema/http/Unsubscribe.ts"
import { CONFIRM_PAGE, DONE_PAGE } from "../../schema/http/UnsubscribePages.ts"
import { ChangeAudit } from "../../services/audit/ChangeAudit.ts"
import { UnsubscribeLinks } from "../../services/catalog/sequences/UnsubscribeLinks.ts"
import { isTransient } from "../../services/Database.ts"
import { DispatchStore } from "../../services/sequences/DispatchStore.ts"

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
      .handle("page", ({ path }) => Effect.as(known(path), CONFIRM_PAGE))
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
          return DONE_PAGE
        }).pipe(
          // the recipient reads a page whether the audit row or the change itself could not be committed
          Effect.catchTag("AuditUnavailable", () => UnsubscribeUnavailable.of()),
          Effect.catchAllDefect((defect) =>
            isTransient(defect)
              ? Effect.zipRight(
                Effect.logWarning("database unavailable: the unsubscribe answers its 503 page", Cause.die(defect)),
                UnsubscribeUnavailable.of()
              )
              : Effect.die(defect)
          )
        ))
  }))

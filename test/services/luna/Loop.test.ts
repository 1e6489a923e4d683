import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { InvalidInput } from "../../../schema/Errors.ts"
import { CONTROL } from "../../../schema/luna/Control.ts"
import type { ModelToolCall } from "../../../schema/luna/Model.ts"
import { Luna } from "../../../services/luna/Luna.ts"
import { LEFT_OUT, NOTHING_ANCHORED } from "../../../services/luna/Narrate.ts"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { call, callsReply, LunaBenchTest, scriptedTurn, textReply } from "../../support/LunaBench.ts"

// Over the bench's seeded directory: 9 medium construction companies in the RM; the first page of 5
// has 118, 85, 68, 171 and 168 employees.
const search = call("companies_search", { industry: "construccion", country: "CL", region: "CL-RM", size: "mediana", limit: 5 })

const auditedTools = (workspaceId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ readonly toolId: string }>`SELECT tool_id FROM audit_log WHERE workspace_id = ${workspaceId} ORDER BY at`
  ).pipe(
    Effect.map((rows) => rows.map((row) => row.toolId))
  )

layer(LunaBenchTest, { timeout: "120 seconds" })("Luna's loop with the scripted model", (it) => {
  it.effect("a cierre: events in order, the result cited by r1, the functions of the stage offered, the projection", () =>
    Effect.gen(function* () {
      const narration = "Hay 9 constructoras medianas en la RM [[ref:r1]]; la más grande tiene 171 empleados [[ref:r1]]."
      const { calls, end, events, session, who } = yield* scriptedTurn(
        [callsReply(search), textReply(narration)],
        "Constructoras medianas en la RM"
      )
      assert.deepStrictEqual(events.map((e) => e.type === "tool" ? `tool ${e.state}` : e.type), [
        "turn.started",
        "message.user",
        "tool input-available",
        "tool output-available",
        "message.assistant",
        "turn.completed"
      ])
      assert.deepStrictEqual(events.map((e) => e.seq), [1, 2, 3, 4, 5, 6])
      const output = events[3]
      assert.strictEqual(output?.type === "tool" && output.state === "output-available" ? output.ref : undefined, "r1")
      const text = "Hay 9 constructoras medianas en la RM; la más grande tiene 171 empleados."
      assert.deepStrictEqual(end.outcome, { kind: "cierre", text, partial: false })
      assert.deepStrictEqual(end.metrics.attempts, [{ attempt: 1, anchors: 2, unresolved_refs: 0, unanchored_figures: 0, ok: true }])
      const offered = calls[0]?.request.functions.map((f) => f.tool) ?? []
      assert.include(offered, "companies_search")
      assert.include(offered, CONTROL.limit)
      assert.notInclude(offered, "sequence_create")
      assert.strictEqual(calls.length, 2)
      const view = yield* (yield* Luna).view(who, session.id)
      assert.strictEqual(view.turns.length, 1)
      const turn = view.turns[0]
      assert.strictEqual(turn?.status, "completed")
      assert.strictEqual(turn?.text, text)
      assert.deepStrictEqual(turn?.parts.map((p) => [p.tool_id, p.state, p.ref]), [["companies_search", "output-available", "r1"]])
      assert.strictEqual(view.stage, "prospectando")
      assert.strictEqual(view.last_seq, 6)
    }))

  it.effect("a responder: an answer without tools, one model call", () =>
    Effect.gen(function* () {
      const { calls, end, events } = yield* scriptedTurn(
        [textReply("Sí: te muestro la cotización antes de gastar créditos.")],
        "¿Me avisas antes de gastar?"
      )
      assert.deepStrictEqual(end.outcome, {
        kind: "responder",
        text: "Sí: te muestro la cotización antes de gastar créditos.",
        partial: false
      })
      assert.strictEqual(calls.length, 1)
      assert.isFalse(events.some((e) => e.type === "tool"))
    }))

  it.effect("a limite: luna.limite ends the turn with its redirect to an existing tool; an unknown tool is no redirect", () =>
    Effect.gen(function* () {
      const limit = (redirect: string) =>
        callsReply(call(CONTROL.limit, {
          tipo: "sin_conector",
          detalle: "No puedo abrir tu bandeja de Gmail: ese conector no existe hoy.",
          redirect_tool: redirect,
          redirect_message: "Sí puedo dejarte lista una secuencia para que la autorices."
        }))
      const known = yield* scriptedTurn([limit("sequence_create")], "Abre mi Gmail", "con_lista")
      assert.deepStrictEqual(known.end.outcome, {
        kind: "limite",
        tipo: "sin_conector",
        detalle: "No puedo abrir tu bandeja de Gmail: ese conector no existe hoy.",
        redirect: { tool: "sequence_create", message: "Sí puedo dejarte lista una secuencia para que la autorices." }
      })
      const unknown = yield* scriptedTurn([limit("gmail_open")], "Abre mi Gmail", "con_lista")
      assert.strictEqual(unknown.end.outcome.kind === "limite" ? unknown.end.outcome.redirect.tool : "?", null)
    }))

  it.effect("a proponer_decision: the proposed tool is not run, what ran before it is", () =>
    Effect.gen(function* () {
      const propose = call(CONTROL.decision, {
        tool: "crm_save",
        input: { company_ids: ["co_1g7b3x20002x"] },
        summary: "Cargar Ingeniería y Construcción Los Robles al CRM"
      })
      const { end, who } = yield* scriptedTurn([callsReply(search), callsReply(propose)], "Carga la más grande al CRM")
      assert.deepStrictEqual(end.outcome, {
        kind: "proponer_decision",
        tool: "crm_save",
        input: { company_ids: ["co_1g7b3x20002x"] },
        summary: "Cargar Ingeniería y Construcción Los Robles al CRM"
      })
      assert.deepStrictEqual(yield* auditedTools(who.principal.workspaceId), ["companies_search"])
    }))

  it.effect("a proposal whose input the tool would refuse is no decision: the model reads the refusal a direct call gets, and corrects it", () =>
    Effect.gen(function* () {
      const summary = "Cargar Ingeniería y Construcción Los Robles al CRM"
      const misnamed = { company_id: ["co_1g7b3x20002x"] }
      const wrong = call(CONTROL.decision, { tool: "crm_save", input: misnamed, summary })
      const empty = call(CONTROL.decision, { tool: "crm_save", input: {}, summary })
      const right = call(CONTROL.decision, { tool: "crm_save", input: { company_ids: ["co_1g7b3x20002x"] }, summary })
      const { calls, end, events, session, who } = yield* scriptedTurn(
        [callsReply(search), callsReply(wrong), callsReply(empty), callsReply(right)],
        "Carga la más grande al CRM"
      )
      assert.deepStrictEqual(end.outcome, {
        kind: "proponer_decision",
        tool: "crm_save",
        input: { company_ids: ["co_1g7b3x20002x"] },
        summary
      })
      assert.deepStrictEqual(events.filter((e) => e.type === "turn.completed").length, 1, "one decision: the valid one")
      const executor = yield* Executor
      const direct = (input: unknown) =>
        Effect.flip(executor.call("crm_save", input, { surface: "luna", principal: who.principal, sessionId: session.id }))
      const replyTo = (n: number, id: string) => {
        const answered = calls[n]?.request.messages.find((m) => m.role === "tool" && m.tool_call_id === id)
        return JSON.parse(answered?.role === "tool" ? answered.content : "{}") as unknown
      }
      const refusal = (error: InvalidInput) => ({
        error: { tag: error._tag, message: error.message, issues: error.issues, ...(error.hint === undefined ? {} : { hint: error.hint }) }
      })
      const misnamedRefused = yield* direct(misnamed)
      if (misnamedRefused._tag !== "InvalidInput") return assert.fail(misnamedRefused._tag)
      assert.include(misnamedRefused.hint ?? "", "company_ids (not company_id)")
      assert.deepStrictEqual(replyTo(2, wrong.id), refusal(misnamedRefused))
      const emptyRefused = yield* direct({})
      if (emptyRefused._tag !== "InvalidInput") return assert.fail(emptyRefused._tag)
      assert.deepStrictEqual(replyTo(3, empty.id), refusal(emptyRefused))
      assert.strictEqual(calls.length, 4)
      // only the search ran, and the two direct calls above (refused on their input)
      assert.deepStrictEqual(yield* auditedTools(who.principal.workspaceId), ["companies_search", "crm_save", "crm_save"])
    }))

  it.effect("a proposal to confirm a spend without its quote_token is no decision: refused as a direct call is, before any card", () =>
    Effect.gen(function* () {
      const summary = "Enriquecer Ingeniería y Construcción Los Robles"
      const unquoted = { company_ids: ["co_1g7b3x20002x"], confirm: true, idempotency_key: "enrich-los-robles" }
      const confirmed = call(CONTROL.decision, { tool: "company_enrich", input: unquoted, summary })
      const quoted = call(CONTROL.decision, { tool: "company_enrich", input: { company_ids: ["co_1g7b3x20002x"] }, summary })
      const { calls, end, session, who } = yield* scriptedTurn(
        [callsReply(search), callsReply(confirmed), callsReply(quoted)],
        "Enriquece la más grande"
      )
      assert.deepStrictEqual(end.outcome, {
        kind: "proponer_decision",
        tool: "company_enrich",
        input: { company_ids: ["co_1g7b3x20002x"] },
        summary
      })
      const executor = yield* Executor
      const refused = yield* Effect.flip(
        executor.call("company_enrich", unquoted, { surface: "luna", principal: who.principal, sessionId: session.id })
      )
      if (refused._tag !== "InvalidInput") return assert.fail(refused._tag)
      assert.deepStrictEqual(refused.issues.map((issue) => issue.path), ["input.quote_token"])
      assert.include(refused.message, "quote_token is required with confirm: true")
      const answered = calls[2]?.request.messages.find((m) => m.role === "tool" && m.tool_call_id === confirmed.id)
      const read = JSON.parse(answered?.role === "tool" ? answered.content : "{}") as { error?: InvalidInput }
      assert.deepStrictEqual(read.error?.issues, refused.issues)
      assert.strictEqual(read.error?.message, refused.message)
      assert.include(read.error?.hint ?? "", "Call company_enrich without confirm first", "the model reads what to do instead")
      assert.strictEqual(read.error?.hint, refused.hint)
    }))

  it.effect("a direct call its tool refuses reads the refusal's issues and hint, as the log keeps its tag and message", () =>
    Effect.gen(function* () {
      const lookup = call("crm_lookup", { company_id: ["co_1g7b3x20002x"] })
      const { calls, events } = yield* scriptedTurn([callsReply(lookup), textReply("No pude buscar en el CRM.")], "¿Está en el CRM?")
      const answered = calls[1]?.request.messages.at(-1)
      const read = JSON.parse(answered?.role === "tool" ? answered.content : "{}") as { error?: InvalidInput }
      assert.strictEqual(read.error?.message, "input.company_id is not a field this input accepts")
      assert.include(read.error?.hint ?? "", "company_ids (not company_id)")
      assert.deepStrictEqual(read.error?.issues?.map((issue) => issue.path), ["input.company_id"])
      const logged = events.find((e) => e.type === "tool" && e.state === "output-error")
      assert.deepStrictEqual(logged?.type === "tool" && logged.state === "output-error" ? logged.error.tag : "", "InvalidInput")
    }))

  it.effect("a decision's summary is anchored like a reply: tokens stripped when it anchors; a fallback when its repair does not", () =>
    Effect.gen(function* () {
      const propose = (summary: string) =>
        call(CONTROL.decision, { tool: "crm_save", input: { company_ids: ["co_1g7b3x20002x"] }, summary })
      const anchored = yield* scriptedTurn(
        [callsReply(search), callsReply(propose("Cargar al CRM la de 171 empleados [[ref:r1]]"))],
        "Carga la más grande al CRM"
      )
      assert.deepStrictEqual(anchored.end.outcome, {
        kind: "proponer_decision",
        tool: "crm_save",
        input: { company_ids: ["co_1g7b3x20002x"] },
        summary: "Cargar al CRM la de 171 empleados"
      })
      assert.strictEqual(anchored.calls.length, 2)
      const decision = call(CONTROL.decision, {
        tool: "crm_save",
        input: { company_ids: ["co_1g7b3x20002x"] },
        summary: "Cargar al CRM la de 250 empleados [[ref:r1]]"
      })
      const { calls, end } = yield* scriptedTurn(
        [callsReply(search), callsReply(decision), textReply("Cargar al CRM la de 240 empleados [[ref:r1]]")],
        "Carga la más grande al CRM"
      )
      assert.deepStrictEqual(end.outcome, {
        kind: "proponer_decision",
        tool: "crm_save",
        input: { company_ids: ["co_1g7b3x20002x"] },
        summary: NOTHING_ANCHORED,
        partial: true
      })
      assert.deepStrictEqual(end.metrics.attempts.map((a) => [a.attempt, a.unanchored_figures, a.ok]), [[1, 1, false], [2, 1, false]])
      const repair = calls[2]?.request
      assert.deepStrictEqual(repair?.functions, [])
      const answered = repair?.messages.at(-2)
      assert.deepStrictEqual(answered, {
        role: "tool",
        tool_call_id: decision.id,
        content: JSON.stringify({ summary: "Cargar al CRM la de 250 empleados [[ref:r1]]" })
      })
      const asked = repair?.messages.at(-1)
      assert.include(asked?.role === "user" ? asked.content : "", "El texto \"summary\"")
    }))

  it.effect("a shown text stays within its 500 characters: a longer repair is not taken, and the left-out sentence goes when it would not fit", () =>
    Effect.gen(function* () {
      const propose = (summary: string) =>
        callsReply(call(CONTROL.decision, { tool: "crm_save", input: { company_ids: ["co_1g7b3x20002x"] }, summary }))
      // figure-free filler: only its length matters
      const filler = (n: number) => "Es la empresa más grande de la búsqueda, con sede en la región. ".repeat(n).trim()
      const long = `Cargar al CRM la de 171 empleados [[ref:r1]]. ${filler(8)}`
      assert.isAbove(long.length, 500)
      const tooLong = yield* scriptedTurn(
        [callsReply(search), propose("Cargar al CRM la de 250 empleados [[ref:r1]]"), textReply(long)],
        "Carga la más grande al CRM"
      )
      assert.deepStrictEqual(tooLong.end.outcome, {
        kind: "proponer_decision",
        tool: "crm_save",
        input: { company_ids: ["co_1g7b3x20002x"] },
        summary: NOTHING_ANCHORED,
        partial: true
      })
      const asked = tooLong.calls[2]?.request.messages.at(-1)
      assert.include(asked?.role === "user" ? asked.content : "", "a lo más 500 caracteres")

      // one figure-free sentence of 415 characters: the anchored part fits, with the left-out sentence it would not
      const sentence = `${`Es la más grande de la búsqueda${" y la más conocida de la región".repeat(14)}`.slice(0, 414).trimEnd()}.`
      const full = `Cargar al CRM la de 171 empleados [[ref:r1]]. ${sentence} Son 250 personas [[ref:r1]].`
      assert.isAtMost(full.length, 500)
      assert.isAbove(`Cargar al CRM la de 171 empleados. ${sentence} ${LEFT_OUT}`.length, 500)
      const noRoom = yield* scriptedTurn(
        [callsReply(search), propose(full), textReply("Son 240 personas [[ref:r1]].")],
        "Carga la más grande al CRM"
      )
      const outcome = noRoom.end.outcome
      const summary = outcome.kind === "proponer_decision" ? outcome.summary : ""
      assert.isAtMost(summary.length, 500)
      assert.isTrue(summary.startsWith("Cargar al CRM la de 171 empleados."), summary)
      assert.notInclude(summary, "250")
      assert.notInclude(summary, LEFT_OUT)
      assert.isTrue(outcome.kind === "proponer_decision" && outcome.partial === true)
    }))

  it.effect("a shown text's 500 characters are counted as characters: a repair of emoji within them is taken whole", () =>
    Effect.gen(function* () {
      const repair = `Cargar al CRM la de 171 empleados [[ref:r1]]. ${"😀".repeat(300)}`
      const shown = `Cargar al CRM la de 171 empleados. ${"😀".repeat(300)}`
      assert.isAbove(shown.length, 500)
      assert.isAtMost([...shown].length, 500)
      const { end } = yield* scriptedTurn(
        [
          callsReply(search),
          callsReply(call(CONTROL.decision, {
            tool: "crm_save",
            input: { company_ids: ["co_1g7b3x20002x"] },
            summary: "Cargar al CRM la de 250 empleados [[ref:r1]]"
          })),
          textReply(repair)
        ],
        "Carga la más grande al CRM"
      )
      assert.deepStrictEqual(end.outcome, {
        kind: "proponer_decision",
        tool: "crm_save",
        input: { company_ids: ["co_1g7b3x20002x"] },
        summary: shown
      })
    }))

  it.effect("a limit's detalle and redirect are anchored: a repair that anchors is taken, one that does not leaves the anchored part, partial", () =>
    Effect.gen(function* () {
      const limit = (detalle: string, redirect_message: string) =>
        callsReply(call(CONTROL.limit, { tipo: "sin_conector", detalle, redirect_tool: "crm_save", redirect_message }))
      const repaired = yield* scriptedTurn(
        [
          callsReply(search),
          limit("No puedo llamar a las 12 constructoras [[ref:r1]].", "Sí puedo cargar las 9 al CRM [[ref:r1]]."),
          textReply("No puedo llamar a las 9 constructoras [[ref:r1]].")
        ],
        "Llama a las constructoras"
      )
      assert.deepStrictEqual(repaired.end.outcome, {
        kind: "limite",
        tipo: "sin_conector",
        detalle: "No puedo llamar a las 9 constructoras.",
        redirect: { tool: "crm_save", message: "Sí puedo cargar las 9 al CRM." }
      })
      assert.deepStrictEqual(repaired.end.metrics.attempts.map((a) => [a.attempt, a.anchors, a.unanchored_figures, a.ok]), [
        [1, 1, 1, false],
        [2, 2, 0, true]
      ])
      const shown = repaired.events.find((e) => e.type === "message.assistant")
      assert.deepStrictEqual(
        shown?.type === "message.assistant" ? [shown.text, shown.attempt] : [],
        ["No puedo llamar a las 9 constructoras. Sí puedo cargar las 9 al CRM.", 2]
      )
      const refused = yield* scriptedTurn(
        [
          callsReply(search),
          limit("No puedo llamar por teléfono.", "Hay 9 constructoras [[ref:r1]]. Puedo cargar 300 al CRM."),
          textReply("Puedo cargar 300 al CRM [[ref:r1]].")
        ],
        "Llama a las constructoras"
      )
      assert.deepStrictEqual(refused.end.outcome, {
        kind: "limite",
        tipo: "sin_conector",
        detalle: "No puedo llamar por teléfono.",
        redirect: { tool: "crm_save", message: `Hay 9 constructoras. ${LEFT_OUT}` },
        partial: true
      })
    }))

  it.effect("a call outside the stage's belt is refused before the executor, counted, and the model recovers", () =>
    Effect.gen(function* () {
      const outside = call("sequence_get", { sequence_id: "sq_abc" })
      const narration = "Hay 9 constructoras medianas en la RM [[ref:r1]]."
      const { calls, end, events, who } = yield* scriptedTurn(
        [callsReply(outside), callsReply(search), textReply(narration)],
        "¿Cómo va la secuencia? Y búscame constructoras"
      )
      assert.strictEqual(end.metrics.belt_violations, 1)
      assert.strictEqual(end.outcome.kind, "cierre")
      const refused = events.find((e) => e.type === "tool" && e.state === "output-error")
      assert.strictEqual(refused?.type === "tool" && refused.state === "output-error" ? refused.error.tag : undefined, "OutOfBelt")
      // it says where the tool is, and how to get there
      const said = refused?.type === "tool" && refused.state === "output-error" ? refused.error.message : ""
      assert.include(said, "sequence_get is on stage con_lista: change stage with luna__cambiar_etapa first.")
      const seen = calls[1]?.request.messages.at(-1)
      assert.include(seen?.role === "tool" ? seen.content : "", "OutOfBelt")
      assert.strictEqual(events.find((e) => e.type === "tool" && e.state === "output-available" && e.ref === "r1")?.seq, 6)
      assert.deepStrictEqual(yield* auditedTools(who.principal.workspaceId), ["companies_search"])
    }))

  it.effect("a tool name the model made up is quoted in its refusal by its first 100 characters, never half an emoji", () =>
    Effect.gen(function* () {
      const madeUp: ModelToolCall = { id: "call_made_up", tool: `unknown:${"🙂".repeat(120)}`, arguments: "{}" }
      const { events } = yield* scriptedTurn([callsReply(madeUp), textReply("Eso no lo puedo hacer desde aquí.")], "¿Qué puedes hacer?")
      const [refusal] = events.flatMap((e) => e.type === "tool" && e.state === "output-error" ? [e.error] : [])
      assert.isTrue(refusal?.message.startsWith(`${"🙂".repeat(100)} is not among the tools of stage`), refusal?.message)
    }))

  it.effect("a call refused for being off the belt is logged under the tool the model asked for, by any function name, its input as JSON", () =>
    Effect.gen(function* () {
      // as the model gateway hands calls by names the request did not offer
      const offBelt = call("unknown:sequence_get", { sequence_id: "sq_abc" })
      const dotted = call("unknown:sii__rcv__consultar", { periodo: "2025-01" })
      const noTool: ModelToolCall = { id: "call_no_tool", tool: "unknown:gmail_read", arguments: "abre mi bandeja" }
      const { calls, end, events, session, who } = yield* scriptedTurn(
        [callsReply(offBelt, dotted, noTool), textReply("Eso no lo puedo hacer desde aquí.")],
        "¿Cómo va la secuencia?"
      )
      assert.deepStrictEqual([end.outcome.kind, end.metrics.belt_violations], ["responder", 3])
      const logged = events.flatMap((e) =>
        e.type === "tool" ? [[e.tool_call_id, e.tool_id, e.state, e.state === "input-available" ? e.input : e.state]] : []
      )
      assert.deepStrictEqual(logged, [
        [offBelt.id, "sequence_get", "input-available", { sequence_id: "sq_abc" }],
        [offBelt.id, "sequence_get", "output-error", "output-error"],
        [dotted.id, "sii.rcv.consultar", "input-available", { periodo: "2025-01" }],
        [dotted.id, "sii.rcv.consultar", "output-error", "output-error"],
        [noTool.id, "gmail_read", "input-available", "abre mi bandeja"],
        [noTool.id, "gmail_read", "output-error", "output-error"]
      ])
      // the refusal is as it was: said to the model, with where the tool is
      const refusals = events.flatMap((e) => e.type === "tool" && e.state === "output-error" ? [e.error] : [])
      assert.deepStrictEqual(refusals.map((r) => r.tag), ["OutOfBelt", "OutOfBelt", "OutOfBelt"])
      assert.include(refusals[0]?.message ?? "", "sequence_get is on stage con_lista: change stage with luna__cambiar_etapa first.")
      assert.isTrue(refusals[1]?.message.startsWith("sii__rcv__consultar is not among the tools of stage prospectando."))
      assert.isTrue(refusals[2]?.message.startsWith("gmail_read is not among the tools of stage prospectando."))
      const read = calls[1]?.request.messages.filter((m) => m.role === "tool").map((m) => m.role === "tool" ? m.content : "")
      assert.deepStrictEqual(read, refusals.map((r) => JSON.stringify({ error: { tag: r.tag, message: r.message } })))
      const view = yield* (yield* Luna).view(who, session.id)
      assert.deepStrictEqual(view.turns[0]?.parts.map((p) => [p.tool_id, p.state, p.input]), [
        ["sequence_get", "output-error", { sequence_id: "sq_abc" }],
        ["sii.rcv.consultar", "output-error", { periodo: "2025-01" }],
        ["gmail_read", "output-error", "abre mi bandeja"]
      ])
    }))

  it.effect("what a person must approve is refused before the executor: a level-1 write, a confirmed spend; a quote runs", () =>
    Effect.gen(function* () {
      const save = call("crm_save", { company_ids: ["co_1g7b3x20002x"] })
      const enrich = { company_ids: ["co_1g7b3x20002x"] }
      const confirmed = call("company_enrich", { ...enrich, confirm: true, quote_token: "qt_guessed", idempotency_key: "k-1" })
      const quote = call("company_enrich", enrich)
      const { calls, end, events, who } = yield* scriptedTurn(
        [
          callsReply(search),
          callsReply(save),
          callsReply(confirmed),
          callsReply(quote),
          textReply("Hay 9 constructoras medianas [[ref:r1]].")
        ],
        "Carga la más grande al CRM y enriquécela"
      )
      assert.strictEqual(end.outcome.kind, "cierre")
      assert.strictEqual(end.metrics.belt_violations, 0)
      const refusals = events.flatMap((e) =>
        e.type === "tool" && e.state === "output-error" ? [[e.tool_id, e.error.tag, e.error.message]] : []
      )
      assert.deepStrictEqual(refusals.slice(0, 2).map(([tool, tag]) => [tool, tag]), [["crm_save", "NeedsApproval"], [
        "company_enrich",
        "NeedsApproval"
      ]])
      assert.include(String(refusals[0]?.[2]), "propose it with luna__proponer_decision")
      const seen = calls[2]?.request.messages.at(-1)
      assert.include(seen?.role === "tool" ? seen.content : "", "NeedsApproval")
      // the write and the confirmed spend never reached the executor; the quote did
      assert.deepStrictEqual(yield* auditedTools(who.principal.workspaceId), ["companies_search", "company_enrich"])
    }))

  it.effect("the manual names the loop's functions as the model is offered them", () =>
    Effect.gen(function* () {
      const { calls } = yield* scriptedTurn([textReply("Hola.")], "Hola")
      const system = calls[0]?.request.messages[0]
      const manual = system?.role === "system" ? system.content : ""
      assert.include(manual, "termina con luna__limite")
      assert.include(manual, "propónlo con luna__proponer_decision")
      assert.notInclude(manual, "luna.limite")
    }))

  it.effect("a repair that anchors is taken: the repair call offers no functions and both attempts are measured", () =>
    Effect.gen(function* () {
      const first = "Hay 9 constructoras medianas [[ref:r1]]. La más grande tiene 171 empleados."
      const second = "Hay 9 constructoras medianas [[ref:r1]]. La más grande tiene 171 empleados [[ref:r1]]."
      const { calls, end, events } = yield* scriptedTurn(
        [callsReply(search), textReply(first), textReply(second)],
        "Constructoras medianas"
      )
      assert.deepStrictEqual(end.outcome, {
        kind: "cierre",
        text: "Hay 9 constructoras medianas. La más grande tiene 171 empleados.",
        partial: false
      })
      assert.deepStrictEqual(end.metrics.attempts.map((a) => [a.attempt, a.anchors, a.unanchored_figures, a.ok]), [[1, 1, 1, false], [
        2,
        2,
        0,
        true
      ]])
      const repair = calls[2]?.request
      assert.deepStrictEqual(repair?.functions, [])
      const asked = repair?.messages.at(-1)
      assert.include(asked?.role === "user" ? asked.content : "", "[validador de anclaje]")
      const message = events.find((e) => e.type === "message.assistant")
      assert.strictEqual(message?.type === "message.assistant" ? message.attempt : 0, 2)
    }))

  it.effect("a valid repair with fewer anchors than attempt 1's anchored part is not taken", () =>
    Effect.gen(function* () {
      const first = "Hay 9 constructoras medianas [[ref:r1]]; la más grande tiene 171 empleados [[ref:r1]]. Entre todas suman unos 600."
      const second = "Hay 9 constructoras medianas [[ref:r1]]."
      const { end } = yield* scriptedTurn([callsReply(search), textReply(first), textReply(second)], "Constructoras medianas")
      assert.deepStrictEqual(end.outcome, {
        kind: "cierre",
        text: `Hay 9 constructoras medianas; la más grande tiene 171 empleados. ${LEFT_OUT}`,
        partial: true
      })
      assert.deepStrictEqual(end.metrics.attempts.map((a) => [a.anchors, a.ok]), [[2, false], [1, true]])
    }))

  it.effect("a repair that still does not anchor closes with the anchored part, partial", () =>
    Effect.gen(function* () {
      const first = "Hay 9 constructoras medianas [[ref:r1]]. Suman unos 600 empleados."
      const second = "Son 9 [[ref:r1]] y suman 700 empleados [[ref:r1]]."
      const { end } = yield* scriptedTurn([callsReply(search), textReply(first), textReply(second)], "Constructoras medianas")
      assert.deepStrictEqual(end.outcome, { kind: "cierre", text: `Hay 9 constructoras medianas. ${LEFT_OUT}`, partial: true })
      assert.deepStrictEqual(end.metrics.attempts.map((a) => a.ok), [false, false])
    }))

  it.effect("the step cap ends the turn as a limit (pasos_agotados) without asking the model again", () =>
    Effect.gen(function* () {
      const replies = Array.from({ length: 9 }, () => callsReply(call("usage", {})))
      const { calls, end } = yield* scriptedTurn(replies, "Revisa mi uso una y otra vez")
      assert.strictEqual(end.outcome.kind === "limite" ? end.outcome.tipo : end.outcome.kind, "pasos_agotados")
      assert.strictEqual(end.metrics.steps, 8)
      assert.strictEqual(end.metrics.tool_calls, 8)
      assert.strictEqual(calls.length, 8)
    }))

  it.effect("a script that runs out is a model that does not answer: limite modelo_no_disponible, the call kept without a reply", () =>
    Effect.gen(function* () {
      const { calls, end } = yield* scriptedTurn([callsReply(search)], "Constructoras medianas")
      assert.strictEqual(end.outcome.kind === "limite" ? end.outcome.tipo : end.outcome.kind, "modelo_no_disponible")
      // the person reads a sentence in their language; what the model's endpoint said stays in the log
      assert.strictEqual(
        end.outcome.kind === "limite" ? end.outcome.detalle : "",
        "El modelo de Luna no respondió; el turno quedó sin terminar."
      )
      assert.strictEqual(calls.length, 2)
      assert.isNull(calls[1]?.reply)
      assert.include(calls[1]?.problem ?? "", "the script ran out after 1 replies")
    }))
})

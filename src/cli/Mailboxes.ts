import { Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Console, Effect, Layer, Option, Schema } from "effect"
import { AdminLive } from "../../layers/Admin.ts"
import { decodeMailboxName, MAILBOX_NAME_MAX } from "../../schema/catalog/MailboxName.ts"
import { PROVIDER_DAILY_CAP, PROVIDER_MIN_SPACING, SuppressionReason } from "../../schema/catalog/Sequences.ts"
import { Mailboxes } from "../../services/catalog/sequences/Mailboxes.ts"
import { Suppressions } from "../../services/catalog/sequences/Suppressions.ts"
import { Workspaces } from "../../services/workspace/Workspaces.ts"
import { CommandFailed, namedWorkspace } from "./Failure.ts"
import { database, databaseSettings, workspaceOption as workspaceNameOption } from "./Settings.ts"
import { table, when } from "./Table.ts"

const SequencesAdminLive = Layer.mergeAll(Mailboxes.Default, Suppressions.Default).pipe(Layer.provideMerge(AdminLive))

const workspaceOption = workspaceNameOption("The workspace's name")

const workspace = (name: string) => namedWorkspace(Effect.flatMap(Workspaces, (workspaces) => workspaces.principalFor(name)))

const bounded = (name: string, min: number, max: number) =>
  Options.mapEffect((n: number) =>
    n >= min && n <= max
      ? Effect.succeed(n)
      : Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--${name} must be between ${min} and ${max}, not ${n}`)))
  )

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

const add = Command.make("add", {
  ...database,
  workspace: workspaceOption,
  email: Options.text("email").pipe(
    Options.withPseudoName("ADDRESS"),
    Options.withDescription("The sender address"),
    Options.mapEffect((
      e
    ) => (EMAIL.test(e)
      ? Effect.succeed(e)
      : Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--email must be an address, not "${e}"`))))
    )
  ),
  name: Options.text("name").pipe(
    Options.withPseudoName("NAME"),
    Options.withDescription(`The display name of the sender, as recipients see it (1 to ${MAILBOX_NAME_MAX} characters)`),
    Options.mapEffect((given) =>
      decodeMailboxName(given).pipe(Effect.mapError((invalid) => ValidationError.invalidValue(HelpDoc.p(`--name ${invalid.reason}`))))
    )
  ),
  dailyCap: Options.integer("daily-cap").pipe(
    Options.withPseudoName("N"),
    Options.withDescription(`Messages a day at most (1–${PROVIDER_DAILY_CAP}, default ${PROVIDER_DAILY_CAP})`),
    Options.withDefault(PROVIDER_DAILY_CAP),
    bounded("daily-cap", 1, PROVIDER_DAILY_CAP)
  ),
  spacing: Options.integer("spacing").pipe(
    Options.withPseudoName("SECONDS"),
    Options.withDescription(`Seconds between sends at least (≥ ${PROVIDER_MIN_SPACING}, default ${PROVIDER_MIN_SPACING})`),
    Options.withDefault(PROVIDER_MIN_SPACING),
    bounded("spacing", PROVIDER_MIN_SPACING, 86_400)
  ),
  noSpf: Options.boolean("no-spf").pipe(Options.withDescription("The provider reports no SPF for the domain")),
  noDkim: Options.boolean("no-dkim").pipe(Options.withDescription("The provider reports no DKIM for the domain")),
  noDmarc: Options.boolean("no-dmarc").pipe(Options.withDescription("The provider reports no DMARC policy for the domain"))
}, (options) =>
  Effect.gen(function* () {
    const principal = yield* workspace(options.workspace)
    const added = yield* (yield* Mailboxes).add(principal.workspaceId, {
      email: options.email,
      displayName: options.name,
      dailyCap: options.dailyCap,
      minSpacingSeconds: options.spacing,
      spf: !options.noSpf,
      dkim: !options.noDkim,
      dmarc: !options.noDmarc
    })
    if (Option.isNone(added)) {
      return yield* new CommandFailed({ message: `"${principal.workspaceName}" already has a mailbox ${options.email}`, exitCode: 1 })
    }
    const m = added.value
    yield* Console.log(m.id)
    yield* Console.error(
      `added ${m.email} (grant ${m.grantId}) to "${principal.workspaceName}": ${m.dailyCap} a day, ${m.minSpacingSeconds} s apart`
    )
  }).pipe(Effect.provide(SequencesAdminLive), databaseSettings(options))).pipe(
    Command.withDescription("Add a sender mailbox (a grant at the mail provider) to a workspace; prints its id")
  )

const list = Command.make("list", { ...database, workspace: workspaceOption }, (options) =>
  Effect.gen(function* () {
    const principal = yield* workspace(options.workspace)
    const all = yield* (yield* Mailboxes).list(principal.workspaceId)
    const yes = (b: boolean) => (b ? "yes" : "no")
    yield* Console.log(table(
      ["ID", "EMAIL", "NAME", "GRANT", "SPF", "DKIM", "DMARC", "CAP", "SPACING", "CREATED"],
      all.map((
        m
      ) => [
        m.id,
        m.email,
        m.displayName,
        m.grantId,
        yes(m.spf),
        yes(m.dkim),
        yes(m.dmarc),
        String(m.dailyCap),
        `${m.minSpacingSeconds}s`,
        when(m.createdAt)
      ])
    ))
  }).pipe(Effect.provide(SequencesAdminLive), databaseSettings(options))).pipe(
    Command.withDescription("List a workspace's sender mailboxes")
  )

export const mailboxes = Command.make("mailboxes").pipe(
  Command.withDescription("Sender mailboxes of sequences"),
  Command.withSubcommands([add, list])
)

const reason = Options.text("reason").pipe(
  Options.withPseudoName(SuppressionReason.literals.join(" | ")),
  Options.withDescription(`Why: ${SuppressionReason.literals.join(", ")}`),
  Options.mapEffect((value) =>
    Schema.decodeUnknown(SuppressionReason)(value).pipe(
      Effect.mapError(() =>
        ValidationError.invalidValue(HelpDoc.p(`--reason must be one of ${SuppressionReason.literals.join(", ")}, not "${value}"`))
      )
    )
  )
)

const suppress = Command.make("add", {
  ...database,
  workspace: workspaceOption,
  address: Options.text("address").pipe(
    Options.withPseudoName("ADDRESS"),
    Options.withDescription("An email address, or @domain for a whole domain")
  ),
  reason
}, (options) =>
  Effect.gen(function* () {
    const principal = yield* workspace(options.workspace)
    const address = options.address.trim().toLowerCase()
    const isDomain = address.startsWith("@")
    if (isDomain !== (options.reason === "blocked_domain") || !(isDomain ? /^@[^\s@]+\.[^\s@]+$/ : EMAIL).test(address)) {
      return yield* new CommandFailed({ message: "give an email address, or @domain with --reason blocked_domain", exitCode: 2 })
    }
    const row = yield* (yield* Suppressions).add(principal.workspaceId, address, options.reason, "operator")
    yield* Console.error(`suppressed ${row.address} (${row.reason}) in "${principal.workspaceName}"`)
  }).pipe(Effect.provide(SequencesAdminLive), databaseSettings(options))).pipe(
    Command.withDescription("Suppress an address or a domain for a workspace's sequences")
  )

const suppressed = Command.make("list", { ...database, workspace: workspaceOption }, (options) =>
  Effect.gen(function* () {
    const principal = yield* workspace(options.workspace)
    const all = yield* (yield* Suppressions).list(principal.workspaceId)
    yield* Console.log(table(["ADDRESS", "REASON", "SOURCE", "AT"], all.map((s) => [s.address, s.reason, s.source, when(s.at)])))
  }).pipe(Effect.provide(SequencesAdminLive), databaseSettings(options))).pipe(Command.withDescription("List a workspace's suppressions"))

export const suppressions = Command.make("suppressions").pipe(
  Command.withDescription("Addresses and domains sequences never write to"),
  Command.withSubcommands([suppress, suppressed])
)

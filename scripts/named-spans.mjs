// Lists the effectful service methods in services/ and layers/ that are plain functions rather than
// a named Effect.fn (so they open no span): exported functions that return an Effect, and the
// function-valued members of a service's implementation (the object its constructor returns, or
// passes to Tag.of / Layer.succeed). Exits 1 when it finds one that is not excused below.
// It asks the type checker what each function returns, so it takes about as long as `tsc`.
import path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

// Combinators and per-call helpers where a span would cost more than it tells.
const EXCUSED = new Map([
  ["services/Database.ts retryTransient", "a combinator over the caller's effect, which carries its own span"],
  ["services/Database.ts readSnapshot", "a combinator over the caller's reads, generic in them; it opens its span (Database.readSnapshot)"],
  ...[
    "services/catalog/empresas/Lists.ts",
    "services/catalog/sequences/SequenceStore.ts",
    "services/connectors/banco/BancoCache.ts",
    "services/connectors/sii/RcvCache.ts"
  ].map((file) => [`${file} snapshot`, "a combinator over the caller's reads; its transaction has a span (Database.readSnapshot)"]),
  [
    "layers/StartLock.ts withStartLock",
    "a combinator over the caller's start, generic in it; it opens its span (EmbeddedPostgres.startLock)"
  ],
  ["services/Ids.ts newId", "one random id, made on every call and row"],
  ["services/Crypto.ts newSecret", "one random secret"],
  ["services/sync/CacheWriter.ts upsertWithHistory", "prepares the rows for its write, which has the span (CacheWriter.upsertWithHistory)"],
  // The closures of one call, inside the executor's step spans (services/Span.ts): a span each would
  // repeat the step's on every call.
  ["services/tools/Tool.ts run", "a tool's handler bound to its call, inside Executor.run"],
  ["services/tools/Tool.ts prepare", "a tool's input decoding, inside Executor.decode"],
  ["services/tools/Registry.ts decode", "the tool's prepare with its policy, inside Executor.decode"],
  ["services/pipeline/Authorize.ts run", "the bound handler of a call, inside Executor.run"],
  ["services/pipeline/Run.ts collecting", "a combinator over the handler, inside Executor.run or Executor.afterCommit"],
  ["services/audit/AuditLog.ts record", "queues the caller's row, inside its Executor.audit span; the group writer's flush has its own"],
  ["services/pipeline/Resolve.ts begin", "writes the call's request id and start on its span (Executor.call), which it is handed"],
  ["services/pipeline/Executor.ts call", "opens its span (Executor.call) with Effect.useSpan and hands it to every step"],
  ["services/pipeline/Authorize.ts check", "picks one of its step's two spans (Executor.authorize), with or without a lookup under it"],
  ["services/pipeline/Budget.ts check", "picks its step's span (Executor.budget) by the tool's cost: computed alone, or over SQL"],
  ["services/upstream/SessionGuard.ts guarded", "a combinator: the guarded upstream step carries the span"],
  ["services/upstream/SimulatorClock.ts scaledSleep", "a sleep inside the simulators' spans"]
])

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..")
const inScope = (file) => /^(services|layers)\//.test(path.relative(root, file).split(path.sep).join("/"))
const config = ts.getParsedCommandLineOfConfigFile(path.join(root, "tsconfig.json"), {}, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
    throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
  }
})
const program = ts.createProgram(config.fileNames.filter(inScope), config.options)
const checker = program.getTypeChecker()

const isFunction = (node) => node !== undefined && (ts.isArrowFunction(node) || ts.isFunctionExpression(node))
const returnsEffect = (fn) => {
  const signature = checker.getSignatureFromDeclaration(fn)
  if (signature === undefined) return false
  const returned = checker.typeToString(checker.getReturnTypeOfSignature(signature), undefined, ts.TypeFormatFlags.NoTruncation)
  return /^(Effect\.)?Effect</.test(returned)
}
const declaredFunction = (symbol) => {
  const declaration = symbol?.valueDeclaration
  return declaration !== undefined && ts.isVariableDeclaration(declaration) && isFunction(declaration.initializer)
    ? declaration.initializer
    : undefined
}
const memberFunction = (property) => {
  if (ts.isShorthandPropertyAssignment(property)) return declaredFunction(checker.getShorthandAssignmentValueSymbol(property))
  if (ts.isMethodDeclaration(property)) return property
  if (!ts.isPropertyAssignment(property)) return undefined
  if (isFunction(property.initializer)) return property.initializer
  return ts.isIdentifier(property.initializer) ? declaredFunction(checker.getSymbolAtLocation(property.initializer)) : undefined
}
const isImplementation = (object) => {
  const parent = object.parent
  if (ts.isReturnStatement(parent) || ts.isParenthesizedExpression(parent)) return true
  if (ts.isArrowFunction(parent) && parent.body === object) return true
  return ts.isCallExpression(parent) && /(\.of|Layer\.succeed)$/.test(parent.expression.getText())
}

const found = []
for (const source of program.getSourceFiles()) {
  if (!inScope(source.fileName)) continue
  const file = path.relative(root, source.fileName).split(path.sep).join("/")
  const report = (node, name) => {
    const where = `${file} ${name}`
    if (!EXCUSED.has(where)) found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${name}`)
  }
  const visit = (node) => {
    if (ts.isVariableStatement(node) && node.parent === source && node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      for (const d of node.declarationList.declarations) {
        if (isFunction(d.initializer) && returnsEffect(d.initializer)) report(d, d.name.getText())
      }
    }
    if (ts.isObjectLiteralExpression(node) && isImplementation(node)) {
      for (const property of node.properties) {
        const fn = memberFunction(property)
        if (fn !== undefined && returnsEffect(fn)) report(property, property.name.getText())
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
}

if (found.length > 0) {
  console.log(`effectful service methods that are not a named Effect.fn (${found.length}):\n${found.join("\n")}`)
  process.exit(1)
}
console.log("every effectful service method is a named Effect.fn")

export interface ScriptedScenario {
  readonly clave: string
  readonly when: string
  readonly effect: string
}

export const scenarioOf = <S extends ReadonlyArray<ScriptedScenario>>(
  table: S,
  clave: string
): S[number]["clave"] | "normal" => table.find((s) => s.clave === clave)?.clave ?? "normal"

// Lint and format as the Effect repositories do: typescript-eslint parses, `@effect/dprint` formats.
// Only rules that need no type information, so a run over the whole tree stays quick; unused names are left to
// tsc (`noUnusedLocals`, `noUnusedParameters`).
import effect from "@effect/eslint-plugin"
import { defineConfig } from "eslint/config"
import tseslint from "typescript-eslint"

// The Effect settings, except two that keep this code base's own shape: lines up to 140 columns (120 would rewrap
// twice as many lines) and `function* ()` with its space, the more common spelling here.
const dprint = {
  indentWidth: 2,
  lineWidth: 140,
  semiColons: "asi",
  quoteStyle: "alwaysDouble",
  trailingCommas: "never",
  operatorPosition: "maintain",
  "arrowFunction.useParentheses": "force",
  "functionExpression.spaceBeforeParentheses": true
}

export default defineConfig(
  {
    ignores: ["**/dist/", "**/coverage/", "**/.brein/", "**/*.d.ts"]
  },
  tseslint.configs.recommended,
  {
    files: ["**/*.{ts,mts,cts,js,mjs,cjs}"],
    plugins: { "@effect": effect },
    languageOptions: {
      parser: tseslint.parser,
      ecmaVersion: "latest",
      sourceType: "module"
    },
    linterOptions: {
      reportUnusedDisableDirectives: "error"
    },
    rules: {
      "@effect/dprint": ["error", { config: dprint }],

      "no-unused-vars": "off",
      "@typescript-eslint/no-unused-vars": "off",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/array-type": ["error", { default: "generic", readonly: "generic" }],
      "@typescript-eslint/no-namespace": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      "object-shorthand": "error",
      "prefer-const": "error",
      "no-var": "error",
      "no-console": "error"
    }
  },
  {
    // The program ships bundled, and a command loads what the entry reaches (scripts/bundle.mjs): an index that
    // re-exports a heavy module puts it in every command's start-up, used or not.
    files: ["src/**", "layers/**", "services/**", "schema/**"],
    ignores: ["src/bench/**"],
    rules: {
      "no-restricted-imports": ["error", {
        paths: [
          {
            name: "@effect/platform-node",
            message:
              "Import the module by its own path (@effect/platform-node/NodeContext): the index brings undici and ws into every command."
          },
          {
            name: "@effect/platform",
            importNames: ["HttpApiScalar"],
            message: "The docs page is imported by its own path, behind import(), in src/http/Docs.ts alone."
          }
        ]
      }],
      "no-restricted-properties": [
        "error",
        ...["maxLength", "minLength", "length", "nonEmptyString"].map((property) => ({
          object: "Schema",
          property,
          message: "Count characters as the published JSON Schema does (code points): use maxLength/minLength from schema/Length.ts."
        }))
      ]
    }
  },
  {
    // Writing to the terminal is the point of the command line and the benchmarks.
    files: ["src/cli/**", "src/bench/**", "scripts/**", "bin/**"],
    rules: {
      "no-console": "off"
    }
  }
)

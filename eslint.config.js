import effect from "@effect/eslint-plugin"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["dist/**", "effect4/dist/**", "node_modules/**", "coverage/**", "bench/node_modules/**"] },
  ...tseslint.configs.recommended,
  ...effect.configs.dprint,
  {
    plugins: { "@effect": effect },
    rules: {
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }],
      "@typescript-eslint/array-type": ["error", { default: "generic", readonly: "generic" }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }]
    }
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/bin.ts", "src/cli/**"],
    rules: { "no-console": "error" }
  },
  {
    // esbuild keeps every export of a namespace re-exported by `effect`'s index: all of Effect 4's Schema
    // in the facade's bundle (effect4/test/bundle.test.ts)
    files: ["effect4/src/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        paths: [{
          name: "effect",
          message: "import a module by its own path: import * as Schema from \"effect/Schema\""
        }]
      }]
    }
  }
)

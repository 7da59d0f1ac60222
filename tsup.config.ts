import { defineConfig } from "tsup"

export default defineConfig([
  {
    entry: {
      index: "src/index.ts",
      "promise/index": "src/promise/index.ts",
      tokenizers: "src/tokenizers.ts",
      store: "src/store.ts",
      ai: "src/ai.ts",
      adapters: "src/adapters.ts"
    },
    format: ["esm", "cjs"],
    dts: true,
    clean: false,
    sourcemap: true,
    target: "node20",
    splitting: true
  },
  {
    entry: { bin: "src/bin.ts" },
    format: ["esm"],
    target: "node20",
    sourcemap: true,
    banner: { js: "#!/usr/bin/env node" }
  }
])

import { defineConfig } from "tsup"

export default defineConfig([
  {
    entry: {
      index: "src/index.ts",
      "promise/index": "src/promise/index.ts",
      tokenizers: "src/tokenizers.ts",
      store: "src/store.ts",
      ai: "src/ai.ts",
      adapters: "src/adapters.ts",
      cluster: "src/cluster.ts"
    },
    format: ["esm", "cjs"],
    dts: true,
    clean: false,
    // Source maps map stack traces to src/ lines; without the sources' text in them (the
    // package does not ship src/), which would double what an install adds.
    sourcemap: true,
    esbuildOptions: (options) => {
      options.sourcesContent = false
    },
    target: "node20",
    splitting: true,
    // Classes keep their names in the build (esbuild renames a class that refers to itself, as
    // Schema.TaggedError classes do: an error printed as _InvalidMessageError otherwise).
    keepNames: true
  },
  {
    // The command line's own packages (@effect/cli, @effect/platform-node and
    // what they load) are bundled, so that a library-only install never
    // downloads them; `effect` and the optional peers (tokenizers, SQLite)
    // stay external and are loaded from the user's node_modules.
    entry: { bin: "src/bin.ts" },
    format: ["esm"],
    target: "node20",
    sourcemap: false,
    splitting: true,
    noExternal: [/^@effect\/(?:cli|platform|platform-node|platform-node-shared|printer|printer-ansi)(?:\/|$)/],
    external: ["effect", /^effect\//, "gpt-tokenizer", "js-tiktoken", /^@effect\/sql/, "@effect/ai"],
    banner: { js: "#!/usr/bin/env node" }
  },
  {
    // The report page's script with Chart.js bundled in, read by src/cli/Report.ts and inlined into
    // each report: dist/report-page.js.
    entry: { "report-page": "src/report/page.ts" },
    format: ["iife"],
    platform: "browser",
    target: "es2020",
    minify: true,
    sourcemap: false,
    dts: false,
    outExtension: () => ({ js: ".js" })
  }
])

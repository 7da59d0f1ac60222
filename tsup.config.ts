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
    // The command line; the HTML report's code (src/cli/Report*.ts) is imported only for --report,
    // so it lands in its own chunk.
    entry: { bin: "src/bin.ts" },
    format: ["esm"],
    target: "node20",
    sourcemap: true,
    splitting: true,
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

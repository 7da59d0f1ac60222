/**
 * The HTML report of `rollmem replay --report report.html`: one
 * self-contained file (styles, data and script inline, Chart.js bundled in)
 * that opens in any browser without a network.
 *
 * The page's script (`src/report/page.ts` with Chart.js) is built once into
 * `dist/report-page.js`, next to the command line's own chunks, and read
 * when a report is written: neither the library nor the rest of the command
 * line loads it. Run from source (`tsx src/bin.ts`, the tests), the script is
 * bundled from `src/report/page.ts` with esbuild (a development dependency)
 * instead.
 *
 * Transcript text is untrusted: the data goes into a `<script
 * type="application/json">` with `<`, `>`, `&` and the line separators
 * U+2028 and U+2029 written as `\u` escapes, so no text can close the
 * element, and the page puts it into the document as text only.
 *
 * @since 0.2.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { fileURLToPath } from "node:url"
import type { ReportDocument } from "../report/Data.js"

/**
 * Writing a report failed: its page script is missing from the installation
 * (`path`), or the report file could not be written.
 *
 * @since 0.2.0
 * @category errors
 */
export class ReportError extends Schema.TaggedError<ReportError>("rollmem/ReportError")("ReportError", {
  path: Schema.String,
  description: Schema.String
}) {
  override get message(): string {
    return `cannot write the report: ${this.path}: ${this.description}`
  }
}

/**
 * JSON for inside a `<script>` element: `JSON.stringify` with every
 * character that could end the element or the script (`<`, `>`, `&`,
 * U+2028, U+2029) written as a `\u` escape. `JSON.parse` reads it back
 * unchanged.
 *
 * @since 0.2.0
 * @category combinators
 */
export const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** Text for HTML element content and attribute values. */
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const STYLE = `
:root { color-scheme: light; --line: #d8dce3; --muted: #5b6472; --bg-soft: #f5f7fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2330; }
header { padding: 16px 24px 8px; border-bottom: 1px solid var(--line); }
h1 { margin: 0 0 4px; font-size: 20px; }
h2 { font-size: 17px; margin: 20px 0 6px; }
h3 { font-size: 16px; margin: 0 0 2px; word-break: break-all; }
h4 { font-size: 14px; margin: 14px 0 2px; }
main { padding: 0 24px 32px; }
.config { margin: 0; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
.lead, .explain, .legend, .facts { color: var(--muted); margin: 2px 0 8px; max-width: 110ch; }
.legend span { display: block; font-size: 12px; }
.scroll-x { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 8px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
.totals th, .compare th { background: var(--bg-soft); }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 6px; }
.chart { position: relative; height: 340px; }
.compare-chart { height: 300px; max-width: 900px; }
.layout { display: grid; grid-template-columns: minmax(0, 620px) minmax(0, 1fr); gap: 20px; align-items: start; }
@media (max-width: 1100px) { .layout { grid-template-columns: minmax(0, 1fr); } }
.list { position: sticky; top: 8px; }
#filter { width: 100%; padding: 5px 8px; margin-bottom: 6px; border: 1px solid var(--line); border-radius: 4px; font: inherit; }
.list-scroll { max-height: calc(100vh - 80px); overflow: auto; border: 1px solid var(--line); border-radius: 4px; }
#conversation-list { width: 100%; font-size: 13px; }
#conversation-list td { padding: 3px 6px; }
#conversation-list thead th { position: sticky; top: 0; background: var(--bg-soft); z-index: 1; padding: 0; }
#conversation-list th button { all: unset; cursor: pointer; display: block; padding: 4px 6px; font-weight: 600; white-space: normal; }
#conversation-list th button:focus-visible { outline: 2px solid #1f5fa8; }
#conversation-list .arrow { color: var(--muted); font-size: 11px; }
#conversation-list tbody tr { cursor: pointer; }
#conversation-list tbody tr:hover { background: #eef3fb; }
#conversation-list tbody tr.selected { background: #dce8f8; }
#conversation-list td.id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 11.5px; }
.bad { color: #b00017; font-weight: 600; }
.detail { min-width: 0; }
ol.context { list-style: none; padding: 0; margin: 6px 0; }
ol.context > li { margin: 0 0 8px; }
.tool-group { border: 1px solid #c9b8e0; border-left: 4px solid #7b3fb5; border-radius: 4px; padding: 4px 6px; background: #faf7fd; }
.tool-group .message + .message { margin-top: 4px; }
.message { border: 1px solid var(--line); border-radius: 4px; background: #fff; }
.message.kind-result { margin-left: 18px; }
.summary .message { border: 1px solid #e8b86a; border-left: 4px solid #e07b00; background: #fff8ec; }
.message-head { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; padding: 3px 8px; border-bottom: 1px solid var(--line); font-size: 12px; }
.position { color: var(--muted); font-variant-numeric: tabular-nums; }
.role { font-weight: 700; text-transform: uppercase; letter-spacing: .03em; padding: 0 6px; border-radius: 3px; color: #fff; background: #5b6472; }
.role-user { background: #1f5fa8; }
.role-assistant { background: #2e8b3a; }
.role-system, .role-developer { background: #444; }
.role-tool { background: #7b3fb5; }
.tag { padding: 0 6px; border-radius: 3px; background: var(--bg-soft); border: 1px solid var(--line); }
.summary-tag { background: #ffe3b8; border-color: #e8b86a; }
.tag.bad { background: #ffe5e8; border-color: #f2a2ac; }
pre.content { margin: 0; padding: 6px 8px; white-space: pre-wrap; overflow-wrap: anywhere; font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; max-height: 320px; overflow: auto; }
pre.content:empty { display: none; }
ul.calls { margin: 0; padding: 4px 8px 6px 24px; font-size: 12px; }
ul.calls code { overflow-wrap: anywhere; white-space: pre-wrap; }
.call-id { color: var(--muted); margin-right: 6px; }
`

/**
 * The report page: `document` as JSON, the styles and `script` (the built
 * page script) inline. `script` must not contain `</script` (the built one
 * does not; {@link loadPageScript} checks).
 *
 * @since 0.2.0
 * @category combinators
 */
export const html = (document: ReportDocument, script: string): string =>
  [
    "<!doctype html>",
    "<html lang=\"en\">",
    "<head>",
    "<meta charset=\"utf-8\">",
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
    `<title>${escapeHtml(`rollmem report: ${document.title.replace(/^rollmem replay: /, "")}`)}</title>`,
    `<style>${STYLE}</style>`,
    "</head>",
    "<body>",
    "<noscript>This report draws its tables and charts with JavaScript: open it in a browser with scripts on.</noscript>",
    `<script type="application/json" id="rollmem-data">${scriptJson(document)}</script>`,
    `<script>${script}</script>`,
    "</body>",
    "</html>",
    ""
  ].join("\n")

const SCRIPT_NAME = "report-page.js"

const fromSource = (): boolean => import.meta.url.endsWith(".ts")

/** Bundles the page script from source, as the build does (see tsup.config.ts). */
const bundleFromSource = (entry: string): Effect.Effect<string, ReportError> =>
  Effect.tryPromise({
    try: async () => {
      // A computed specifier: the build leaves esbuild (a development dependency) out of the package.
      const specifier = "esbuild"
      const esbuild = await import(specifier) as typeof import("esbuild")
      const result = await esbuild.build({
        entryPoints: [entry],
        bundle: true,
        format: "iife",
        platform: "browser",
        target: "es2020",
        minify: true,
        write: false,
        legalComments: "eof"
      })
      return result.outputFiles[0].text
    },
    catch: (error) => new ReportError({ path: entry, description: String(error) })
  })

/**
 * The page script: `report-page.js` next to this module in the installed
 * package (`dist/`), or, run from source, bundled from `src/report/page.ts`.
 * Fails with {@link ReportError} when the file is missing or holds
 * `</script` (it would end the inline script early).
 *
 * @since 0.2.0
 * @category constructors
 */
export const loadPageScript: Effect.Effect<string, ReportError, FileSystem.FileSystem> = Effect.gen(function*() {
  const script = fromSource()
    ? yield* bundleFromSource(fileURLToPath(new URL("../report/page.ts", import.meta.url)))
    : yield* Effect.flatMap(FileSystem.FileSystem, (fs) => {
      const path = fileURLToPath(new URL(`./${SCRIPT_NAME}`, import.meta.url))
      return fs.readFileString(path).pipe(
        Effect.mapError((error) =>
          new ReportError({ path, description: `the report's page script is missing (${error.message})` })
        )
      )
    })
  if (/<\/script/i.test(script)) {
    return yield* new ReportError({ path: SCRIPT_NAME, description: "the page script contains </script" })
  }
  return script
})

/**
 * Writes the report of `document` to `path` (replacing the file). Fails with
 * {@link ReportError}: the page script is missing, or the file cannot be
 * written (the description says why, e.g. a missing directory).
 *
 * @since 0.2.0
 * @category constructors
 */
export const write = (
  path: string,
  document: ReportDocument
): Effect.Effect<number, ReportError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const page = html(document, yield* loadPageScript)
    yield* fs.writeFileString(path, page).pipe(
      Effect.mapError((error) => new ReportError({ path, description: error.message }))
    )
    return Buffer.byteLength(page)
  })

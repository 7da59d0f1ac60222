#!/usr/bin/env bash
# Packs the tarball, installs it in a temp folder like a user would, and
# imports every entry point from ESM and from CJS (loading a tokenizer once in
# each); runs the bin once.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$root"
npx publint --strict
npx attw --pack . --profile node16 --ignore-rules cjs-resolves-to-esm
tarball="$(npm pack --silent --pack-destination "$tmp" | tail -n 1)"
cd "$tmp"
npm init -y >/dev/null
npm install --no-audit --no-fund "./$tarball" >/dev/null
cat > esm.mjs <<'JS'
import { Effect } from "effect"
import { Message, RollingMemory } from "rollmem"
import { RollingMemory as Facade } from "rollmem/promise"
import * as Tokenizers from "rollmem/tokenizers"
const context = await Effect.runPromise(Effect.gen(function*() {
  const memory = yield* RollingMemory.make({ maxTokens: 5 })
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
const counted = new Facade({ maxTokens: 2000, tokenCounter: count })
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
echo "pack check ok"

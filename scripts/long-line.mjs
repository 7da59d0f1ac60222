// One JSON Lines conversation whose first user message is one line of MB megabytes (default 50), for measuring
// `rollmem replay` on a very long turn (nothing here is committed data):
//   node scripts/long-line.mjs /tmp/long.jsonl 50 prose     sentences with numbers, names and codes
//   node scripts/long-line.mjs /tmp/long.jsonl 50 nowords   words and spaces, no sentence end
//   /usr/bin/time -v node dist/bin.js replay /tmp/long.jsonl --summarizer none        (then extractive)
import * as fs from "node:fs"

const [out, mb, kind] = [process.argv[2], Number(process.argv[3] ?? 50), process.argv[4] ?? "prose"]
if (out === undefined) throw new Error("usage: node scripts/long-line.mjs OUT [MB] [prose|nowords]")
const size = mb * 2 ** 20
const text = kind === "nowords"
  ? "the quick brown fox jumps over the lazy dog "
  : "The parcel with order 48213 never arrived at the Acme Shipping depot in New York, said SEA agent omar_rossi_1241. "
const content = text.repeat(Math.ceil(size / text.length)).slice(0, size)
const messages = [{ role: "user", content }, { role: "assistant", content: "Let me check that order for you." }]
for (let i = 0; i < 10; i++) {
  messages.push({ role: "user", content: `Any news on order ${i}?` }, { role: "assistant", content: "Not yet." })
}
fs.writeFileSync(out, `${JSON.stringify({ id: "long", messages })}\n`)

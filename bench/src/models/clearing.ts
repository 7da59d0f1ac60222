/**
 * A message-level model of the agentic goal of the context-policy section
 * (bench/README.md): how many summarizer calls a RollingMemory with
 * `pinSystem`, a 2,000-token budget, target 1,000 and `clearToolResults:
 * { keep: 3 }` needs at least, under two clearing rules:
 *
 * - `target` (docs/contract.md section 10.5, what rollmem does): once over the
 *   budget, clear old tool results until the buffer is within the target;
 *   if it is not, fold down to the target;
 * - `budget` (`clearToolResults.until: "budget"`, opt-in): clear until within
 *   the budget, and fold only when clearing cannot get there.
 *
 * Idealised: a fold evicts single messages (not units) down to the target,
 * keeping the newest message; a cleared result costs 8 tokens; a message
 * counts its content and its tool calls' JSON (o200k_base). Not a benchmark:
 * counts only, run with `node --import tsx bench/src/models/clearing.ts
 * [conversations.jsonl]`.
 */
import { getEncoding } from "js-tiktoken"
import * as fs from "node:fs"

interface Turn {
  readonly role: string
  readonly content?: unknown
  readonly tool_calls?: unknown
}

const encoding = getEncoding("o200k_base")
const text = (value: unknown): string => typeof value === "string" ? value : JSON.stringify(value ?? "")
const tokens = (turn: Turn): number =>
  encoding.encode(text(turn.content)).length +
  (turn.tool_calls === undefined ? 0 : encoding.encode(JSON.stringify(turn.tool_calls)).length)

const BUDGET = 2000
const TARGET = 1000
const KEEP = 3
const PLACEHOLDER = 8

/** Summarizer calls for one conversation's unpinned turns, clearing until `until` tokens. */
const calls = (turns: ReadonlyArray<Turn>, until: number): number => {
  let buffer: Array<number> = []
  let results: Array<number> = [] // indices in `buffer` of uncleared tool results, oldest first
  let sum = 0
  let folds = 0
  for (const turn of turns) {
    const count = tokens(turn)
    buffer.push(count)
    sum += count
    if (turn.role === "tool") results.push(buffer.length - 1)
    if (sum <= BUDGET) continue
    while (results.length > KEEP && sum > until) {
      const index = results.shift()!
      sum -= buffer[index] - PLACEHOLDER
      buffer[index] = PLACEHOLDER
    }
    if (sum <= until) continue
    folds++
    let start = buffer.length - 1
    let kept = buffer[start]
    while (start > 0 && kept + buffer[start - 1] <= TARGET) kept += buffer[--start]
    buffer = buffer.slice(start)
    results = results.map((index) => index - start).filter((index) => index >= 0)
    sum = kept
  }
  return folds
}

const file = process.argv[2] ?? "../shared/data/conversations-agentic.jsonl"
const conversations = fs.readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "")
  .map((line) => (JSON.parse(line) as { readonly messages: ReadonlyArray<Turn> }).messages)
const turns = conversations.reduce((n, messages) => n + messages.length, 0)
for (const [rule, until] of [["target", TARGET], ["budget", BUDGET]] as const) {
  const total = conversations.reduce((n, messages) => n + calls(messages.filter((m) => m.role !== "system"), until), 0)
  console.log(`${rule}: ${total} calls, ${(1000 * total / turns).toFixed(1)} per 1,000 turns (${turns} turns)`)
}

/**
 * The Effect 3 line's half of the Promise facade's cross-line check: the
 * Effect 4 facade's tests (`effect4/test/promiseConversations.test.ts`) run
 * it, on the repository's own `effect` 3 install, to continue through the
 * Effect 3 `Conversations` a conversation the Effect 4 one wrote, and to
 * read it back.
 *
 *     node --import tsx scripts/conversationsRoundTrip.ts '<store>' <id> add <text>
 *     node --import tsx scripts/conversationsRoundTrip.ts '<store>' <id> read
 *
 * `<store>` is a location (`sqlite:PATH`, `postgres://…`, `redis://…`).
 * `add` adds a user message `<text>` with the rolling strategy (`maxTokens`
 * 4, words counted, each fold appending `+` and the folded contents joined
 * by commas to the summary) and `archive: true`; both print one JSON line:
 * the stored state in the wire format (`null` when none is stored).
 */
import { Conversations, type ConversationsOptions } from "../src/promise/index.js"

const [store, id, command, text] = process.argv.slice(2)
const conversations = new Conversations({
  store,
  strategy: "rolling",
  maxTokens: 4,
  summarize: (summary, turns) => `${summary}+${turns.map((turn) => turn.content).join(",")}`,
  archive: true
} as ConversationsOptions)
try {
  if (command === "add") await conversations.use(id, (memory) => memory.addUserMessage(text))
  else if (command !== "read") throw new Error(`unknown command ${command}`)
  process.stdout.write(`${JSON.stringify((await conversations.load(id)) ?? null)}\n`)
} finally {
  await conversations.dispose()
}

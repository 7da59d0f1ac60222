/**
 * The LangChain peers, fed the same messages with the same tokenizer:
 * `ConversationSummaryBufferMemory` (`@langchain/classic`) over a fake chat
 * model that answers at once and counts with our tokenizer, and
 * `trimMessages` (`@langchain/core`) applied after every turn.
 */
import { ConversationSummaryBufferMemory } from "@langchain/classic/memory"
import type { BaseMessage } from "@langchain/core/messages"
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages } from "@langchain/core/messages"
import { FakeListChatModel } from "@langchain/core/utils/testing"
import type { WireMessage } from "./data.js"

/** A LangChain message for a wire message (tool calls parsed as LangChain wants them). */
export const toLangChain = (m: WireMessage, id: string): BaseMessage => {
  switch (m.role) {
    case "user":
      return new HumanMessage({ content: m.content, id })
    case "system":
      return new SystemMessage({ content: m.content, id })
    case "tool":
      return new ToolMessage({ content: m.content, tool_call_id: m.tool_call_id ?? "", id })
    default:
      return m.tool_calls === undefined || m.tool_calls.length === 0
        ? new AIMessage({ content: m.content, id })
        : new AIMessage({
          content: m.content,
          id,
          tool_calls: m.tool_calls.map((c) => ({
            id: c.id,
            name: c.name,
            args: JSON.parse(c.arguments === undefined || c.arguments === "" ? "{}" : c.arguments) as Record<
              string,
              unknown
            >,
            type: "tool_call" as const
          }))
        })
  }
}

/** The chat model behind the summary memory: answers "summary" at once; counts tokens with our tokenizer. */
class FakeModel extends FakeListChatModel {
  constructor(private readonly counter: (text: string) => number) {
    super({ responses: ["summary"] })
  }
  override getNumTokens(content: unknown): Promise<number> {
    return Promise.resolve(this.counter(typeof content === "string" ? content : JSON.stringify(content)))
  }
}

/** What a summary buffer memory did, for the correctness columns. */
export interface SummaryLog {
  /** Every summarizer call: the messages it was given. */
  readonly calls: Array<ReadonlyArray<BaseMessage>>
}

class LoggedMemory extends ConversationSummaryBufferMemory {
  log: SummaryLog | undefined
  override async predictNewSummary(messages: Array<BaseMessage>, existingSummary: string): Promise<string> {
    this.log?.calls.push([...messages])
    return super.predictNewSummary(messages, existingSummary)
  }
}

/** A fresh summary buffer memory with the given budget. */
export const summaryBufferMemory = (
  maxTokenLimit: number,
  counter: (text: string) => number,
  log?: SummaryLog
): { readonly add: (m: BaseMessage) => Promise<void>; readonly history: () => Promise<Array<BaseMessage>> } => {
  const memory = new LoggedMemory({ llm: new FakeModel(counter), maxTokenLimit, returnMessages: true })
  memory.log = log
  return {
    // saveContext() takes an (input, output) pair; a conversation with tool
    // turns is fed one message at a time: append to the history, then prune,
    // which is exactly what saveContext does after appending its pair.
    add: async (m) => {
      await memory.chatHistory.addMessage(m)
      await memory.prune()
    },
    history: () => memory.chatHistory.getMessages()
  }
}

/** trimMessages after every turn: keeps the newest messages within the budget, starting on a human turn. */
export const trimmedHistory = (
  maxTokens: number,
  counter: (text: string) => number,
  /** The token text (docs/contract.md section 1) of a message, by its id (the text rollmem counts). */
  tokenText: (id: string) => string
): { readonly add: (m: BaseMessage) => Promise<void>; readonly history: () => Array<BaseMessage> } => {
  let history: Array<BaseMessage> = []
  const tokenCounter = (messages: Array<BaseMessage>): number => {
    let n = 0
    for (const m of messages) n += counter(tokenText(m.id!))
    return n
  }
  return {
    add: async (m) => {
      history = await trimMessages([...history, m], { maxTokens, tokenCounter, strategy: "last", startOn: "human" })
    },
    history: () => history
  }
}

import { Message } from "../src/index.js"
import * as A from "../src/adapters.js"
const [turn] = A.fromAnthropic({ messages: [{ role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] }] })
console.log(turn.metadata?.[A.METADATA_KEY] !== undefined, A.MEDIA_TOKENS)
console.log(A.fromOpenAIChat([{ role: "system", content: "You are a travel agent." }, { role: "user", content: "Book me a flight to Rome" }]).map(String))
console.log(A.toOpenAIChat([Message.user("Weather in Rome?")]))
console.log(A.fromOpenAIResponses([{ role: "user", content: "Weather in Rome?" }, { type: "function_call", call_id: "c1", name: "weather", arguments: "{\"city\":\"Rome\"}" }, { type: "function_call_output", call_id: "c1", output: "18C, sunny" }]).map((m) => m.role))
console.log(A.fromAnthropic({ system: "You are a travel agent.", messages: [{ role: "user", content: "Book me a flight to Rome" }] }).map(String))
console.log(JSON.stringify(A.toAnthropic([Message.system("You are a travel agent."), Message.user("Hi")])))
console.log(A.fromAiSdk([{ role: "user", content: "Weather in Rome?" }, { role: "assistant", content: [{ type: "text", text: "18C and sunny." }] }]).map(String))
console.log(A.fromGemini({ systemInstruction: { parts: [{ text: "You are a travel agent." }] }, contents: [{ role: "user", parts: [{ text: "Book me a flight to Rome" }] }] }).map(String))
console.log(JSON.stringify(A.toGemini([Message.system("Be brief."), Message.user("Hi")])))
console.log(A.fromLangChain([{ type: "human", data: { content: "Weather in Rome?" } }]).map(String))
console.log(A.toLangChain([Message.user("Weather in Rome?")])[0].type)

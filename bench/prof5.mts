import { loadAll } from "./src/data.js"
import { countO200k, instantSummary } from "./src/rollmem.js"
import { RollingMemory as F3 } from "../dist/promise/index.js"
import { RollingMemory as F4 } from "../effect4/dist/effect4/src/promise/index.js"
const conversations = loadAll()
const budget = Number(process.env.BUDGET ?? 500)
const F = process.env.LINE === "4" ? F4 : F3
const run = () => { for (const c of conversations) { const m = new F({ maxTokens: budget, summarize: instantSummary, tokenCounter: countO200k }); for (const a of c.facade) m.addMessage(a.role, a.content, a.options as never) } }
for (let i = 0; i < 3; i++) run()
const s2 = performance.now()
for (let i = 0; i < 10; i++) run()
console.log("facade", process.env.LINE, budget, ((performance.now() - s2) / 10).toFixed(1), "ms")

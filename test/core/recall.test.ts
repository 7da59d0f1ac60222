/**
 * The archive's ranking (`core/recall.ts`, docs/contract.md section 17):
 * terms, BM25 scores, exact artifact matches first, and the filters, with
 * exact orders and scores on a small conversation.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Artifacts from "../../src/core/artifacts.js"
import * as Recall from "../../src/core/recall.js"

const documents: ReadonlyArray<Recall.Document> = [
  { position: 0, role: "user", text: "book the flight to Rome" },
  { position: 1, role: "assistant", text: "I changed src/cli/Measure.ts and src/cli/Replay.ts" },
  { position: 2, role: "user", text: "measure the cli replay time" },
  { position: 3, role: "tool", text: "Measure.ts: 3 tests fail" },
  { position: 4, role: "assistant", text: "the flight to Rome leaves at noon" }
]

const indexed = (): Recall.Index => {
  const index = Recall.index()
  for (const document of documents) index.add(document)
  return index
}

const positions = (hits: ReadonlyArray<Recall.Hit>) => hits.map((hit) => hit.position)

describe("terms", () => {
  it("are the runs of letters and digits, lower-cased", () => {
    assert.deepStrictEqual(Recall.terms("src/cli/Measure.ts: 3 TESTS, één"), [
      "src",
      "cli",
      "measure",
      "ts",
      "3",
      "tests",
      "één"
    ])
  })
  it("are read from the NFKC form: composed accents, fullwidth letters and half-width katakana folded", () => {
    assert.deepStrictEqual(Recall.terms("e\u0301cole \u00e9cole ＡＢＣ１２ ｶﾅ ﬁle"), [
      "école",
      "école",
      "abc12",
      "カ",
      "ナ",
      "file"
    ])
    assert.deepStrictEqual([...Recall.words("Cafe\u0301 Café")], ["Café"])
    assert.strictEqual(Recall.normalize("cafe\u0301 ＡＢＣ"), "café ABC")
  })
  it("are each letter in Han, Hiragana, Katakana and Hangul, whatever is around it", () => {
    assert.deepStrictEqual(Recall.terms("漢字を読む abc漢字123 한국어 ラーメン"), [
      "漢",
      "字",
      "を",
      "読",
      "む",
      "abc",
      "漢",
      "字",
      "123",
      "한",
      "국",
      "어",
      "ラ",
      "ー",
      "メ",
      "ン"
    ])
  })
  it("find a word inside a run of Han: each of its letters is a term, the message holding all of them first", () => {
    const index = Recall.index()
    index.add({ position: 0, role: "tool", text: "漢字".repeat(600) })
    index.add({ position: 1, role: "user", text: "字 alone" })
    index.add({ position: 2, role: "user", text: "nothing here" })
    assert.deepStrictEqual(positions(index.search("漢字")), [0, 1])
    assert.deepStrictEqual(index.search("漢字").map((hit) => hit.terms), [2, 1])
    assert.deepStrictEqual(positions(index.search("字")), [0, 1])
  })
})

describe("search", () => {
  it("ranks the message naming the query's artifact first, then by BM25", () => {
    const hits = indexed().search("src/cli/Measure.ts")
    assert.deepStrictEqual(positions(hits), [1, 3, 2])
    assert.deepStrictEqual(hits.map((hit) => hit.exact), [1, 0, 0])
  })

  it("scores with BM25 (k1 1.2, b 1) over the indexed messages", () => {
    const index = Recall.index()
    index.add({ position: 0, role: "user", text: "a b" })
    index.add({ position: 1, role: "user", text: "a c c d" })
    const [first, second] = index.search("c a")
    // N = 2, average length 3; idf(c) = ln(1 + 1.5 / 1.5), idf(a) = ln(1 + 0.5 / 2.5)
    const idfC = Math.log(2)
    const idfA = Math.log(1.2)
    const term = (idf: number, tf: number, length: number) => idf * tf * 2.2 / (tf + 1.2 * (length / 3))
    assert.strictEqual(first.position, 1)
    assert.strictEqual(first.score, term(idfC, 2, 4) + term(idfA, 1, 4))
    assert.strictEqual(second.position, 0)
    assert.strictEqual(second.score, term(idfA, 1, 2))
  })

  it("ranks a message holding more of the query's terms first, whatever the scores", () => {
    const index = Recall.index()
    index.add({ position: 0, role: "user", text: "rare rare rare" })
    index.add({ position: 1, role: "user", text: "rare common words here and more words" })
    index.add({ position: 2, role: "user", text: "common" })
    const hits = index.search("rare common")
    assert.deepStrictEqual(hits.map((hit) => [hit.position, hit.terms]), [[1, 2], [0, 1], [2, 1]])
    assert.isTrue(hits[1].score > hits[0].score)
  })

  it("then ranks the message holding more of the query's words as written (case kept)", () => {
    const index = Recall.index()
    index.add({ position: 0, role: "user", text: "Read the spotter config" })
    index.add({ position: 1, role: "user", text: "read USER spotter" })
    index.add({ position: 2, role: "user", text: "read user Spotter notes" })
    index.add({ position: 3, role: "user", text: "user read" })
    const at = (query: string) => index.search(query).map((hit) => [hit.position, hit.terms, hit.cased])
    assert.deepStrictEqual(at("Read USER spotter"), [[1, 3, 2], [2, 3, 0], [0, 2, 2], [3, 2, 0]])
    assert.deepStrictEqual(at("read user spotter"), [[1, 3, 2], [2, 3, 2], [3, 2, 2], [0, 2, 1]])
    assert.deepStrictEqual(at("Spotter spotter"), [[1, 1, 1], [2, 1, 1], [0, 1, 1]])
    assert.deepStrictEqual([...Recall.words("src/Spotter.ex and spotter, Spotter")], [
      "src",
      "Spotter",
      "ex",
      "and",
      "spotter"
    ])
  })

  it("breaks ties by the newer message", () => {
    assert.deepStrictEqual(positions(indexed().search("flight rome")), [0, 4])
  })

  it("keeps `limit` matches, positions below `before`, the `roles` given", () => {
    const index = indexed()
    assert.deepStrictEqual(positions(index.search("flight measure cli", { limit: 2 })).length, 2)
    assert.deepStrictEqual(positions(index.search("flight rome", { before: 4 })), [0])
    // "measure" as written is in 2 ("measure the cli ..."), not in 3 ("Measure.ts ...")
    assert.deepStrictEqual(positions(index.search("measure", { roles: ["tool", "user"] })), [2, 3])
    assert.deepStrictEqual(positions(index.search("Measure", { roles: ["tool", "user"] })), [3, 2])
    assert.deepStrictEqual(index.search("nothing matches this"), [])
  })

  it("defaults to 5 matches", () => {
    const index = Recall.index()
    for (let i = 0; i < 8; i++) index.add({ position: i, role: "user", text: `note ${i}` })
    assert.deepStrictEqual(positions(index.search("note")), [7, 6, 5, 4, 3])
  })

  it("indexes a position once", () => {
    const index = Recall.index()
    assert.isTrue(index.add({ position: 0, role: "user", text: "alpha" }))
    assert.isFalse(index.add({ position: 0, role: "user", text: "beta" }))
    assert.strictEqual(index.size(), 1)
    assert.deepStrictEqual(index.search("beta"), [])
  })
})

describe("reading the postings rarest first", () => {
  // every message ranked by the contract's rule, the whole archive read: what the index must return
  const reference = (docs: ReadonlyArray<Recall.Document>, query: string, filter: Recall.Filter): Array<Recall.Hit> => {
    const extractor = Artifacts.extractor()
    const wanted = [...new Set(Recall.terms(query))]
    const written = [...Recall.words(query)]
    const artifacts = extractor.extract(query).map((a) => a.text)
    const tfs = docs.map((d) => {
      const tf = new Map<string, number>()
      for (const t of Recall.terms(d.text)) tf.set(t, (tf.get(t) ?? 0) + 1)
      return tf
    })
    const lengths = docs.map((d) => Recall.terms(d.text).length)
    const average = lengths.reduce((a, b) => a + b, 0) / docs.length
    const df = (t: string) => tfs.filter((tf) => tf.has(t)).length
    const hits: Array<Recall.Hit> = []
    docs.forEach((d, i) => {
      if (filter.before !== undefined && d.position >= filter.before) return
      if (filter.roles !== undefined && !filter.roles.includes(d.role)) return
      let score = 0
      let terms = 0
      for (const t of wanted) {
        const tf = tfs[i].get(t)
        if (tf === undefined) continue
        const idf = Math.log(1 + (docs.length - df(t) + 0.5) / (df(t) + 0.5))
        score += idf * tf * (1.2 + 1) / (tf + 1.2 * (1 - 1 + 1 * lengths[i] / average))
        terms++
      }
      const named = new Set(extractor.extract(d.text).map((a) => a.text))
      const exact = artifacts.filter((a) => named.has(a)).length
      if (terms === 0 && exact === 0) return
      const forms = Recall.words(d.text)
      hits.push({ position: d.position, score, exact, terms, cased: written.filter((w) => forms.has(w)).length })
    })
    return hits.sort(Recall.compare).slice(0, filter.limit ?? 5)
  }

  it("returns what ranking every message returns: the same hits, scores and order", () => {
    // 400 messages over a small vocabulary (common, middling and rare words, some capitalized, some artifacts)
    let seed = 7
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed / 2147483648
    }
    const vocabulary = [
      "the",
      "the",
      "the",
      "a",
      "a",
      "and",
      "deploy",
      "Deploy",
      "script",
      "build",
      "test",
      "fail",
      "Rome",
      "rome",
      "flight",
      "USER",
      "user",
      "spotter",
      "Spotter",
      "cache",
      "zebra",
      "quartz",
      "src/cli/Measure.ts",
      "ABC-123"
    ]
    const docs: Array<Recall.Document> = Array.from({ length: 400 }, (_, position) => ({
      position,
      role: position % 3 === 0 ? "tool" : "user",
      text: Array.from(
        { length: 1 + Math.floor(random() * 12) },
        () => vocabulary[Math.floor(random() * vocabulary.length)]
      ).join(" ")
    }))
    const index = Recall.index()
    for (const d of docs) index.add(d)
    const queries = [
      "the",
      "deploy script",
      "Deploy the script",
      "zebra quartz",
      "the a and zebra",
      "USER spotter cache",
      "src/cli/Measure.ts",
      "ABC-123 fail",
      "flight Rome the build test fail",
      "nothing",
      "quartz"
    ]
    const filters: ReadonlyArray<Recall.Filter> = [
      {},
      { limit: 1 },
      { limit: 20 },
      { before: 200 },
      { roles: ["tool"], limit: 3 },
      { limit: 400 }
    ]
    for (const query of queries) {
      for (const filter of filters) {
        assert.deepStrictEqual(
          index.search(query, filter),
          reference(docs, query, filter),
          `${query} ${JSON.stringify(filter)}`
        )
      }
    }
  })
})

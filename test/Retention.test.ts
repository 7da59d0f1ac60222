/**
 * Artifacts and retention (src/core/artifacts.ts, docs/contract.md section
 * 13): the default patterns, user patterns, the incremental tracker, and the
 * ledger section read back as the artifacts it names.
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { Message, Retention } from "../src/index.js"

describe("Retention.extract", () => {
  it("finds each default kind, a URL's path and an address's name not taken twice", () => {
    assert.deepStrictEqual(
      Retention.extract(
        "Read src/cli/Measure.ts, /etc/hosts and ./run.sh (see https://x.example/a/b.html). " +
          "Mail mia.li@example.com about mia_li_3668, order #W1234567, ticket ABC-123, commit bf32bed, " +
          "run 019c538f-348e-77ca-bf93-393907ea21c7."
      ),
      [
        { kind: "url", text: "https://x.example/a/b.html" },
        { kind: "email", text: "mia.li@example.com" },
        { kind: "uuid", text: "019c538f-348e-77ca-bf93-393907ea21c7" },
        { kind: "path", text: "src/cli/Measure.ts" },
        { kind: "path", text: "/etc/hosts" },
        { kind: "path", text: "./run.sh" },
        { kind: "code", text: "#W1234567" },
        { kind: "code", text: "ABC-123" },
        { kind: "hash", text: "bf32bed" },
        { kind: "id", text: "mia_li_3668" }
      ]
    )
  })

  it("leaves out what is not an artifact: words, a lone /word, an identifier without a digit, a number", () => {
    assert.deepStrictEqual(
      Retention.extract("and/or </b> snake_case 1234567 deadbeef-cafe e.g. Effect.map /tmp"),
      []
    )
  })

  it("a distinct artifact once, each kind in order of first appearance; trailing punctuation is not part of it", () => {
    assert.deepStrictEqual(Retention.extract("a/b.ts, then a/b.ts. Also (c/d.md)!"), [
      { kind: "path", text: "a/b.ts" },
      { kind: "path", text: "c/d.md" }
    ])
  })

  it("user patterns extend the defaults", () => {
    const extractor = Retention.extractor([...Retention.defaultPatterns, { kind: "ticket", regex: /\bJIRA\d{3}\b/ }])
    assert.deepStrictEqual(extractor.extract("JIRA123 in lib/x.ex"), [
      { kind: "path", text: "lib/x.ex" },
      { kind: "ticket", text: "JIRA123" }
    ])
    assert.strictEqual(extractor.kindOf("JIRA123"), "ticket")
    assert.strictEqual(extractor.kindOf("lib/x.ex"), "path")
    assert.strictEqual(extractor.kindOf("hello"), undefined)
  })

  it("a ledger section names each of its entries, a directory group expanded", () => {
    const summary = "Fixed the parser.\n\n<artifacts>\nsrc/cli/ Measure.ts Render.ts\nmia_li_3668\n</artifacts>"
    assert.deepStrictEqual(Retention.extract(summary), [
      { kind: "path", text: "src/cli/Measure.ts" },
      { kind: "path", text: "src/cli/Render.ts" },
      { kind: "id", text: "mia_li_3668" }
    ])
    assert.deepStrictEqual(Retention.ledgerOf(summary), ["src/cli/Measure.ts", "src/cli/Render.ts", "mia_li_3668"])
  })
})

describe("Retention.tracker", () => {
  it("retention = artifacts observed so far that the context names, per kind; each message extracted once", () => {
    const tracker = Retention.tracker()
    const first = Message.user("Open src/app.ts and lib/util.ts")
    const second = Message.assistant("", {
      toolCalls: [{ id: "call_77", name: "read", arguments: "{\"path\":\"lib/util.ts\"}" }]
    })
    const third = Message.user("Mail ops@example.com")
    for (const m of [first, second, third]) tracker.observe(m)
    // the tool call id is not read: 3 artifacts, not 4
    assert.deepStrictEqual(tracker.named().map((a) => a.text), ["src/app.ts", "lib/util.ts", "ops@example.com"])
    const figure = tracker.measure([second, third])
    assert.deepStrictEqual(figure, {
      named: 3,
      kept: 2,
      byKind: { email: { named: 1, kept: 1 }, path: { named: 2, kept: 1 } }
    })
    assert.strictEqual(Retention.ratio(figure), 2 / 3)
    assert.deepStrictEqual(Retention.ofKinds(figure, ["path"]), { named: 2, kept: 1 })
    // a summary naming an artifact keeps it; one the conversation never named does not count
    const summary = Message.system("Earlier: src/app.ts, and x/never.md")
    assert.deepStrictEqual(tracker.measure([summary]), {
      named: 3,
      kept: 1,
      byKind: { email: { named: 1, kept: 0 }, path: { named: 2, kept: 1 } }
    })
    assert.strictEqual(Retention.ratio(tracker.measure([])), 0)
    assert.strictEqual(Retention.ratio(Retention.tracker().measure([])), 1)
  })

  it("sum takes several conversations together", () => {
    assert.deepStrictEqual(
      Retention.sum([
        { named: 2, kept: 1, byKind: { path: { named: 2, kept: 1 } } },
        { named: 3, kept: 3, byKind: { id: { named: 1, kept: 1 }, path: { named: 2, kept: 2 } } }
      ]),
      { named: 5, kept: 4, byKind: { id: { named: 1, kept: 1 }, path: { named: 4, kept: 3 } } }
    )
  })
})

describe("Retention: extraction in linear time (pathological pieces)", () => {
  // The whole-text scan the extractor did before it scanned piece by piece: the reference.
  const TRAILING = /[.,;:!?)\]}'"`>]+$/
  const wholeText = (text: string): Array<{ kind: string; text: string }> => {
    const out: Array<{ kind: string; text: string }> = []
    const seen = new Set<string>()
    let rest = text
    for (const { kind, regex: source } of Retention.defaultPatterns) {
      const regex = new RegExp(source.source, source.flags)
      let blanked: Array<string> | undefined
      let from = 0
      for (let m = regex.exec(rest); m !== null; m = regex.exec(rest)) {
        if (m[0] === "") {
          regex.lastIndex++
          continue
        }
        const found = m[0].replace(TRAILING, "")
        if (found === "") continue
        if (!seen.has(found)) {
          seen.add(found)
          out.push({ kind, text: found })
        }
        ;(blanked ??= []).push(rest.slice(from, m.index), " ".repeat(m[0].length))
        from = m.index + m[0].length
      }
      if (blanked !== undefined) {
        blanked.push(rest.slice(from))
        rest = blanked.join("")
      }
    }
    return out
  }

  it("gives the whole-text scan's artifacts, in its order, on random texts (property)", () => {
    const alphabet = fc.constantFrom(
      ..."aAbZ09_-./~@+#:,;=\"'`<>()[]{}\\ \n\tfe1".split(""),
      "src/",
      "https://x.io/a",
      "mia_li_3668",
      "ABC-123",
      "#W1234567",
      "a@b.co",
      "deadbeef12",
      "123e4567-e89b-12d3-a456-426614174000"
    )
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 60 }), (parts) => {
        const text = parts.join("")
        assert.deepStrictEqual(Retention.extract(text), wholeText(text))
      }),
      { numRuns: 2000 }
    )
  })

  it("a 320 KB piece without separators: no identifier, path or e-mail address, and no quadratic scan", () => {
    assert.deepStrictEqual(Retention.extract("a-".repeat(160_000)), [])
    assert.deepStrictEqual(Retention.extract("a.".repeat(160_000)), [])
    assert.deepStrictEqual(Retention.extract("+a".repeat(160_000) + " src/x.ts"), [{ kind: "path", text: "src/x.ts" }])
  })
})

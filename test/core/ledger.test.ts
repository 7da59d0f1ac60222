/**
 * The artifact ledger's text grammar (docs/contract.md section 14.2): the
 * nested directory trees written and read back exactly, the ledger's order
 * surviving the text, a prefix of a ledger being a ledger.
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Ledger from "../../src/core/ledger.js"

const section = (...lines: ReadonlyArray<string>) => `<artifacts>\n${lines.join("\n")}\n</artifacts>`

describe("the ledger's grammar", () => {
  it("paths of one root directory form one tree: own entries first, then subdirectories, one space per level", () => {
    const entries = Ledger.merge([], [
      "/home/me/p/lib/b.ex",
      "src/cli/a.ts",
      "mia_li_3668",
      "/home/me/p/lib/a.ex",
      "src/x.ts",
      "/home/me/p/test/a_test.exs",
      "src/cli/b.ts"
    ])
    // newest first: src/cli/b.ts brings src/ to the front; src/x.ts, a root's own entry, stands before cli/
    assert.deepStrictEqual(entries, [
      "src/x.ts",
      "src/cli/b.ts",
      "src/cli/a.ts",
      "/home/me/p/test/a_test.exs",
      "/home/me/p/lib/a.ex",
      "/home/me/p/lib/b.ex",
      "mia_li_3668"
    ])
    assert.strictEqual(
      Ledger.render(entries),
      section(
        "src/ x.ts",
        " cli/ b.ts a.ts",
        // /home/, me/ and p/ hold no entry of their own and one subdirectory: written as one
        "/home/me/p/",
        " test/a_test.exs",
        " lib/ a.ex b.ex",
        "mia_li_3668"
      )
    )
    assert.deepStrictEqual(Ledger.entriesOf(Ledger.render(entries).slice(12, -13)), entries)
  })

  it("URLs are grouped under their host, up to the last / before ? or #; a URL without a path is a loose entry", () => {
    const entries = Ledger.group([
      "https://aider.chat/docs/faq.html#azure",
      "https://example.com",
      "https://aider.chat/docs/llms.html",
      "https://aider.chat/2024/05/02/browser.html",
      "https://x.dev/a?next=/b/c",
      "https://x.dev/blog/"
    ])
    assert.strictEqual(
      Ledger.render(entries),
      section(
        "https://aider.chat/",
        " docs/ faq.html#azure llms.html",
        " 2024/05/02/browser.html",
        // loose: a URL without a path, a tree of one entry; a URL ending with / alone on its line
        "https://example.com https://x.dev/a?next=/b/c",
        "https://x.dev/blog/"
      )
    )
    assert.strictEqual(Ledger.directoryOf("https://x.dev/a?next=/b/c"), "https://x.dev/")
    assert.strictEqual(Ledger.directoryOf("https://x.dev/blog/"), undefined)
    assert.strictEqual(Ledger.directoryOf("https://example.com"), undefined)
  })

  it("reads the grammar of the first ledger (one level of groups) the same", () => {
    assert.deepStrictEqual(
      Ledger.parse(`g\n\n${section("mia_li_3668", "lib/c.ts", "src/cli/ b.ts a.ts")}`),
      { body: "g", entries: ["mia_li_3668", "lib/c.ts", "src/cli/b.ts", "src/cli/a.ts"] }
    )
  })

  it("loose entries that follow one another share a line; one ending with / stands alone", () => {
    const entries = Ledger.group([
      "mia_li_3668",
      "/dev/null",
      "bf32bed",
      "src/index.ts",
      "src/cli/Measure.ts",
      "ABC-123",
      "https://example.com/",
      "docs/",
      "ops@example.com",
      "https://aider.chat/docs/faq.html",
      "x_1"
    ])
    const text = Ledger.render(entries)
    assert.strictEqual(
      text,
      section(
        // /dev/null, a tree of one entry, is written as that entry and joins the loose line
        "mia_li_3668 /dev/null bf32bed",
        "src/ index.ts",
        " cli/Measure.ts",
        "ABC-123",
        "https://example.com/",
        "docs/",
        "ops@example.com https://aider.chat/docs/faq.html x_1"
      )
    )
    assert.deepStrictEqual(Ledger.entriesOf(text.slice(12, -13)), entries)
  })

  it("reads the one-entry-per-line layout the same: every line that is no group names its words", () => {
    const layouts = [
      ["mia_li_3668", "/dev/null", "bf32bed", "src/ index.ts", " cli/Measure.ts", "https://example.com/", "x_1"],
      ["mia_li_3668 /dev/null bf32bed", "src/ index.ts", " cli/Measure.ts", "https://example.com/", "x_1"]
    ]
    for (const lines of layouts) {
      assert.deepStrictEqual(Ledger.parse(`g\n\n${section(...lines)}`), {
        body: "g",
        entries: [
          "mia_li_3668",
          "/dev/null",
          "bf32bed",
          "src/index.ts",
          "src/cli/Measure.ts",
          "https://example.com/",
          "x_1"
        ]
      })
    }
  })

  it("a directory alone on its line is a directory only when deeper lines follow; otherwise an entry", () => {
    assert.deepStrictEqual(Ledger.entriesOf("docs/\n a.md\nhttps://x.dev/blog/\nb_1"), [
      "docs/a.md",
      "https://x.dev/blog/",
      "b_1"
    ])
    // a deeper line is read within the nearest shallower line's directory, whatever the depth difference
    assert.deepStrictEqual(Ledger.entriesOf("a/ x.ts\n   b/ y.ts\n  z.ts\nw_1"), [
      "a/x.ts",
      "a/b/y.ts",
      "a/z.ts",
      "w_1"
    ])
  })

  const segment = fc.constantFrom("src", "lib", "cli", "a", "b", "home", "me", ".", "..", "~", "x-y")
  const name = fc.constantFrom("a.ts", "b.ex", "c.md", "index.html", "run.sh")
  const entry = fc.oneof(
    fc.tuple(fc.boolean(), fc.array(segment, { minLength: 1, maxLength: 4 }), name).map(([absolute, dirs, file]) =>
      (absolute ? "/" : "") + [...dirs, file].join("/")
    ),
    fc.tuple(fc.constantFrom("https://a.dev", "http://b.org"), fc.array(segment, { maxLength: 3 }), name).map(
      ([host, dirs, file]) => [host, ...dirs, file].join("/")
    ),
    fc.constantFrom("mia_li_3668", "bf32bed", "ops@example.com", "https://a.dev", "docs/", "ABC-123")
  )

  it.prop(
    "written and read back: the same entries in the same order, for every prefix; grouping is idempotent",
    [fc.array(entry, { maxLength: 40 })],
    ([mentioned]) => {
      const entries = Ledger.merge([], mentioned)
      assert.deepStrictEqual(Ledger.group(entries), entries)
      for (let n = 0; n <= entries.length; n++) {
        const summary = Ledger.join("body", Ledger.render(entries, n))
        assert.deepStrictEqual(Ledger.parse(summary), { body: "body", entries: entries.slice(0, n) })
        assert.deepStrictEqual(Ledger.group(entries.slice(0, n)), entries.slice(0, n))
      }
    }
  )

  it.prop(
    "merging keeps each artifact once, the mentioned ones before the others",
    [fc.array(entry, { maxLength: 20 }), fc.array(entry, { maxLength: 20 })],
    ([older, mentioned]) => {
      const previous = Ledger.merge([], older)
      const merged = Ledger.merge(previous, mentioned)
      assert.strictEqual(new Set(merged).size, merged.length)
      assert.deepStrictEqual(new Set(merged), new Set([...older, ...mentioned]))
      // the last mentioned is the first entry, or its tree (its root directory's) is the first
      if (mentioned.length > 0) {
        const root = (e: string) => {
          const dir = Ledger.directoryOf(e)
          if (dir === undefined) return e
          const scheme = dir.indexOf("://")
          return dir.slice(0, dir.indexOf("/", scheme < 0 ? 1 : scheme + 3) + 1)
        }
        assert.strictEqual(root(merged[0]), root(mentioned[mentioned.length - 1]))
      }
    }
  )
})

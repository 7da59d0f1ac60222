/**
 * Cutting text between graphemes (src/internal/text.ts): emoji (surrogate
 * pairs, skin tones, ZWJ families, flags), CJK and combining marks.
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { clip, prefix, suffix } from "../src/internal/text.js"

/** Whether `text` has no lone surrogate (UTF-8 round-trips it unchanged). */
const wellFormed = (text: string): boolean => Buffer.from(text, "utf8").toString("utf8") === text

const boundaries = (text: string): Set<number> =>
  new Set(
    [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text)].map((s) => s.index).concat(
      text.length
    )
  )

describe("prefix", () => {
  it("keeps whole surrogate pairs", () => {
    assert.strictEqual(prefix("😀😀😀", 3), "😀")
    assert.strictEqual(prefix("😀😀😀", 4), "😀😀")
    assert.strictEqual(prefix("a😀", 2), "a")
  })

  it("keeps emoji sequences whole: skin tone, ZWJ family, flags", () => {
    assert.strictEqual(prefix("👍🏽👍🏽", 7), "👍🏽")
    assert.strictEqual(prefix("👨‍👩‍👧x", 7), "")
    assert.strictEqual(prefix("👨‍👩‍👧x", 8), "👨‍👩‍👧")
    assert.strictEqual(prefix("🇫🇷🇩🇪", 6), "🇫🇷")
  })

  it("cuts CJK between any two characters", () => {
    assert.strictEqual(prefix("東京都渋谷区", 3), "東京都")
  })

  it("never separates a combining mark from its letter", () => {
    assert.strictEqual(prefix("e\u0301e\u0301", 3), "e\u0301")
    assert.strictEqual(prefix("a\u0308\u0301b", 2), "")
    assert.strictEqual(prefix("a\u0308\u0301b", 3), "a\u0308\u0301")
  })

  it("returns the text when it fits, nothing for a length of 0 or less", () => {
    assert.strictEqual(prefix("abc", 3), "abc")
    assert.strictEqual(prefix("abc", 0), "")
    assert.strictEqual(prefix("abc", -1), "")
  })

  it.prop(
    "is the longest prefix of at most `length` code units ending on a grapheme boundary",
    [
      fc.string({ unit: fc.constantFrom("a", "東", "😀", "👍🏽", "e\u0301", "\u0301", "🇫🇷", "👨‍👩‍👧", " ", "\u200d") }),
      fc.nat(40)
    ],
    ([text, length]) => {
      const cut = prefix(text, length)
      assert.isTrue(text.startsWith(cut))
      assert.isAtMost(cut.length, Math.max(length, 0))
      const ends = boundaries(text)
      assert.isTrue(ends.has(cut.length))
      for (let n = cut.length + 1; n <= Math.min(length, text.length); n++) assert.isFalse(ends.has(n))
      assert.isTrue(wellFormed(cut))
    }
  )
})

describe("suffix", () => {
  it("starts on a grapheme boundary", () => {
    assert.strictEqual(suffix("x😀😀", 3), "😀")
    assert.strictEqual(suffix("xe\u0301", 1), "")
    assert.strictEqual(suffix("東京都渋谷区", 2), "谷区")
    assert.strictEqual(suffix("abc", 5), "abc")
  })
})

describe("clip", () => {
  it("ends with the ellipsis within the length, cut between graphemes", () => {
    assert.strictEqual(clip("😀".repeat(10), 6), "😀😀…")
    assert.strictEqual(clip("東京都渋谷区", 4), "東京都…")
    assert.strictEqual(clip("e\u0301".repeat(5), 6), "e\u0301e\u0301…")
    assert.strictEqual(clip("short", 5), "short")
    assert.strictEqual(clip("a b   c d", 6), "a b…")
  })
})

/**
 * `--help` and parse errors print colour codes on a terminal only
 * (src/cli/Colour.ts); the real executable piped is checked by
 * scripts/pack-check.sh.
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import { assert, describe, it } from "@effect/vitest"
import { Console, Effect } from "effect"
import * as Colour from "../src/cli/Colour.js"

const recording = (out: Array<string>, err: Array<string>) =>
  Effect.map(Effect.console, (console): Console.Console =>
    Object.assign(Object.create(console) as Console.Console, {
      log: (...args: ReadonlyArray<unknown>) => Effect.sync(() => void out.push(args.map(String).join(" "))),
      error: (...args: ReadonlyArray<unknown>) => Effect.sync(() => void err.push(args.map(String).join(" ")))
    }))

const help = HelpDoc.sequence(HelpDoc.h1("USAGE"), HelpDoc.p("$ rollmem replay <files...>"))

const print = Effect.zipRight(Console.log(HelpDoc.toAnsiText(help)), Console.error(HelpDoc.toAnsiText(help)))

describe("Colour", () => {
  it("stripColour removes SGR codes and nothing else", () => {
    assert.strictEqual(Colour.stripColour("\u001b[1mUSAGE\u001b[0m\n\u001b[31;1mx\u001b[39m"), "USAGE\nx")
    assert.strictEqual(Colour.stripColour("plain [1m] text"), "plain [1m] text")
  })

  it("useColour: a terminal without NO_COLOR", () => {
    assert.isTrue(Colour.useColour(true, {}))
    assert.isTrue(Colour.useColour(true, { NO_COLOR: "" }))
    assert.isFalse(Colour.useColour(true, { NO_COLOR: "1" }))
    assert.isFalse(Colour.useColour(false, {}))
    assert.isFalse(Colour.useColour(undefined, {}))
  })

  it.effect("withColour strips the streams that get no colour, and only those", () =>
    Effect.gen(function*() {
      const ansi = HelpDoc.toAnsiText(help)
      assert.isTrue(ansi.includes("\u001b["))
      const out: Array<string> = []
      const err: Array<string> = []
      const console = yield* recording(out, err)
      yield* print.pipe(Colour.withColour({ stdout: false, stderr: true }), Effect.withConsole(console))
      assert.deepStrictEqual(out, ["USAGE\n\n$ rollmem replay <files...>\n"])
      assert.deepStrictEqual(err, [ansi])
      yield* print.pipe(Colour.withColour({ stdout: true, stderr: false }), Effect.withConsole(console))
      assert.deepStrictEqual(out, ["USAGE\n\n$ rollmem replay <files...>\n", ansi])
      assert.deepStrictEqual(err, [ansi, "USAGE\n\n$ rollmem replay <files...>\n"])
    }))
})

/**
 * The Promise facade's `dispose()` with folds in flight, and its background
 * options: the cases of `test/support/promiseBackgroundCases.ts`, which the
 * Effect 4 line runs too.
 */
import { assert, describe, it } from "@effect/vitest"
import { AsyncRollingMemory, ConfigError, DisposedError } from "../src/promise/index.js"
import { runPromiseBackgroundCases } from "./support/promiseBackgroundCases.js"

runPromiseBackgroundCases({ AsyncRollingMemory, ConfigError, DisposedError }, { assert, describe, it })

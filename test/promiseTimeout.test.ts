/**
 * The async facade's `timeout` option (docs/contract.md sections 9 and
 * 12.2): the cases of `test/support/promiseTimeoutCases.ts`, which the
 * Effect 4 line runs too, with this line's classes.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  AsyncRollingMemory,
  AsyncSummaryMemory,
  ConfigError,
  Conversations,
  RollingMemory
} from "../src/promise/index.js"
import { runPromiseTimeoutCases } from "./support/promiseTimeoutCases.js"

runPromiseTimeoutCases({
  name: "Effect 3",
  AsyncRollingMemory,
  AsyncSummaryMemory,
  RollingMemory,
  Conversations,
  ConfigError
}, { assert, describe, it })

/**
 * The async facade's `timeout` option (docs/contract.md sections 9 and
 * 12.2) on the Effect 4 line: the cases of
 * `test/support/promiseTimeoutCases.ts`, which the Effect 3 line runs too,
 * with this line's classes.
 */
import { assert, describe, it } from "@effect/vitest"
import { runPromiseTimeoutCases } from "../../test/support/promiseTimeoutCases.js"
import {
  AsyncRollingMemory,
  AsyncSummaryMemory,
  ConfigError,
  Conversations,
  RollingMemory
} from "../src/promise/index.js"

runPromiseTimeoutCases({
  name: "Effect 4",
  AsyncRollingMemory,
  AsyncSummaryMemory,
  RollingMemory,
  Conversations,
  ConfigError
}, { assert, describe, it })

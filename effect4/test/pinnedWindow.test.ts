/**
 * A pinned message over the context window on the Effect 4 line
 * (docs/contract.md section 16.1): the Effect 3 line's cases
 * (`test/support/pinnedWindowCases.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { runPinnedWindowCases } from "../../test/support/pinnedWindowCases.js"
import { Message } from "../src/index.js"
import * as Promise from "../src/promise/index.js"

runPinnedWindowCases({
  name: "Effect 4",
  sync: (options) => new Promise.RollingMemory(options),
  async: (options) => new Promise.AsyncRollingMemory(options),
  fromJSON: (data, options) => Promise.RollingMemory.fromJSON(data, options),
  message: (role, content) => Message.make(role, content) as never
}, { assert, describe, it })

/**
 * The error texts of bad inputs on the Effect 3 line's Promise facade: the
 * shared case table (test/support/errorTextCases.ts), which
 * effect4/test/errorTexts.test.ts runs on the Effect 4 line.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Facade from "../src/promise/index.js"
import { runErrorCases } from "./support/errorTextCases.js"

runErrorCases("effect3", Facade, { assert, describe, it })

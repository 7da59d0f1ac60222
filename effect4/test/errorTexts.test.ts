/**
 * The error texts of bad inputs on the Effect 4 line's Promise facade: the
 * shared case table (../../test/support/errorTextCases.ts), which
 * test/errorTexts.test.ts runs on the Effect 3 line, with the same texts.
 */
import { assert, describe, it } from "@effect/vitest"
import { runErrorCases } from "../../test/support/errorTextCases.js"
import * as Facade from "../src/promise/index.js"

runErrorCases("effect4", Facade, { assert, describe, it })

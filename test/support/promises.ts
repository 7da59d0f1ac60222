/** Helpers for tests of the Promise facade. */
import { assert } from "@effect/vitest"

/** What `promise` rejects with; fails the test when it resolves. */
export const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
  } catch (error) {
    return error
  }
  return assert.fail("the promise resolved")
}

/**
 * Helpers for tests of the Promise facade, on both lines (no test tooling
 * import: the Effect 4 line's suite runs them under its own vitest).
 */

/** What `promise` rejects with; fails the test when it resolves. */
export const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error("expected the promise to reject, and it resolved")
}

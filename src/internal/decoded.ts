/**
 * Options objects already decoded with a schema (`schema/Options.ts`): a
 * constructor given one does not decode it again, so options are decoded
 * once on every path (the Promise facade decodes its own options, then
 * hands the strategy's part to the Effect API's `makeStepper`).
 *
 * @internal
 */
const decoded = new WeakMap<object, unknown>()

/** Marks `options` as decoded by `schema` (or built from options it decoded). @internal */
export const markDecoded = <A extends object>(options: A, schema: unknown): A => {
  decoded.set(options, schema)
  return options
}

/** Whether `options` was decoded by `schema` (or built from options it decoded). @internal */
export const isDecoded = (options: unknown, schema: unknown): boolean =>
  typeof options === "object" && options !== null && decoded.get(options) === schema

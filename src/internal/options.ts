/**
 * The one check of an options object's shape, for every constructor that
 * takes options (the Effect API's strategies and `Memory.make`, the Promise
 * facade's classes, stored conversations, the tokenizer layers): plain
 * JavaScript can pass anything, and a misspelt key (`maxToken`) must be
 * refused rather than silently leave the default in place.
 *
 * @internal
 */
import * as Rules from "../core/options.js"
import { ConfigError } from "../Errors.js"

/**
 * A wrong option value as an error names it (`core/options.ts`).
 *
 * @internal
 */
export const describeValue: (value: unknown) => string = Rules.describeValue

/**
 * `undefined` when `options` is an object (not `null`, not an array), else
 * the `ConfigError` `option: "options"` ("must be an object, got null").
 *
 * @internal
 */
export const checkObject = (options: unknown): ConfigError | undefined =>
  typeof options !== "object" || options === null || Array.isArray(options)
    ? new ConfigError({ option: "options", description: `must be an object, got ${Rules.describeKind(options)}` })
    : undefined

/**
 * `undefined` when `options` is an object whose own keys are all in `known`;
 * otherwise the `ConfigError`: `option: "options"` ("must be an object, got
 * null") for `null`, an array or a non-object, else `option` the first
 * unknown key, its description listing the known keys (and naming `owner`,
 * as "the rolling strategy", when given). `undefined` options are the
 * caller's to default.
 *
 * @internal
 */
export const checkOptionKeys = (
  options: unknown,
  known: ReadonlyArray<string>,
  owner?: string
): ConfigError | undefined => {
  const notObject = checkObject(options)
  if (notObject !== undefined) return notObject
  for (const key of Object.keys(options as object)) {
    if (!known.includes(key)) {
      return new ConfigError({
        option: key,
        description: `unknown option${owner === undefined ? "" : ` for ${owner}`} (known: ${known.join(", ")})`
      })
    }
  }
  return undefined
}

/**
 * The JSON schema of `Validity`'s violations: reads `{ _tag, index, ... }`
 * (what `JSON.stringify` writes of a violation) back into the violation, and
 * writes one as that object. `AdapterError` carries its violations with it.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Message, Validity, ValiditySchema } from "rollmem"
 *
 * const found = Validity.violations([Message.tool("42", { toolCallId: "c1" })])
 * const json: unknown = JSON.parse(JSON.stringify(found))
 * Schema.decodeUnknownSync(Schema.Array(ValiditySchema.Violation))(json) // the same violations
 * ```
 *
 * @since 0.5.0
 */
import * as Schema from "effect/Schema"
import * as Validity from "../core/validity.js"

type RoleTag = "FirstTurnNotUser" | "SystemAfterFirstTurn" | "ConsecutiveSameRole"
type CallTag = "OrphanedToolResult" | "UnansweredToolCall"

/** A violation of a role from `{ _tag, index, role }`. */
const withRole = <Tag extends RoleTag, A extends { readonly _tag: Tag; readonly index: number; readonly role: string }>(
  tag: Tag,
  Class: new(fields: { readonly index: number; readonly role: string }) => A
): Schema.Schema<A, { readonly _tag: Tag; readonly index: number; readonly role: string }> =>
  Schema.transform(
    Schema.Struct({ _tag: Schema.Literal(tag), index: Schema.Int, role: Schema.String }),
    Schema.instanceOf(Class),
    {
      strict: true,
      decode: (encoded) => new Class(encoded),
      encode: (a) => ({ _tag: tag, index: a.index, role: a.role })
    }
  )

/** A violation of a tool call id from `{ _tag, index, toolCallId }`. */
const withCall = <
  Tag extends CallTag,
  A extends { readonly _tag: Tag; readonly index: number; readonly toolCallId: string }
>(
  tag: Tag,
  Class: new(fields: { readonly index: number; readonly toolCallId: string }) => A
): Schema.Schema<A, { readonly _tag: Tag; readonly index: number; readonly toolCallId: string }> =>
  Schema.transform(
    Schema.Struct({ _tag: Schema.Literal(tag), index: Schema.Int, toolCallId: Schema.String }),
    Schema.instanceOf(Class),
    {
      strict: true,
      decode: (encoded) => new Class(encoded),
      encode: (a) => ({ _tag: tag, index: a.index, toolCallId: a.toolCallId })
    }
  )

/**
 * `Validity.FirstTurnNotUser` as `{ _tag: "FirstTurnNotUser", index, role }`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ValiditySchema } from "rollmem"
 *
 * const violation = Schema.decodeUnknownSync(ValiditySchema.FirstTurnNotUser)({ _tag: "FirstTurnNotUser", index: 0, role: "assistant" })
 * violation.description // "message 0: the first turn is an assistant message, not a user turn"
 * ```
 *
 * @since 0.5.0
 * @category schemas
 */
export const FirstTurnNotUser = withRole("FirstTurnNotUser", Validity.FirstTurnNotUser)

/**
 * `Validity.OrphanedToolResult` as `{ _tag: "OrphanedToolResult", index, toolCallId }`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ValiditySchema } from "rollmem"
 *
 * Schema.decodeUnknownSync(ValiditySchema.OrphanedToolResult)({ _tag: "OrphanedToolResult", index: 1, toolCallId: "c1" })
 * ```
 *
 * @since 0.5.0
 * @category schemas
 */
export const OrphanedToolResult = withCall("OrphanedToolResult", Validity.OrphanedToolResult)

/**
 * `Validity.UnansweredToolCall` as `{ _tag: "UnansweredToolCall", index, toolCallId }`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ValiditySchema } from "rollmem"
 *
 * Schema.decodeUnknownSync(ValiditySchema.UnansweredToolCall)({ _tag: "UnansweredToolCall", index: 1, toolCallId: "c1" })
 * ```
 *
 * @since 0.5.0
 * @category schemas
 */
export const UnansweredToolCall = withCall("UnansweredToolCall", Validity.UnansweredToolCall)

/**
 * `Validity.SystemAfterFirstTurn` as `{ _tag: "SystemAfterFirstTurn", index, role }`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ValiditySchema } from "rollmem"
 *
 * Schema.decodeUnknownSync(ValiditySchema.SystemAfterFirstTurn)({ _tag: "SystemAfterFirstTurn", index: 2, role: "system" })
 * ```
 *
 * @since 0.5.0
 * @category schemas
 */
export const SystemAfterFirstTurn = withRole("SystemAfterFirstTurn", Validity.SystemAfterFirstTurn)

/**
 * `Validity.ConsecutiveSameRole` as `{ _tag: "ConsecutiveSameRole", index, role }`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ValiditySchema } from "rollmem"
 *
 * Schema.decodeUnknownSync(ValiditySchema.ConsecutiveSameRole)({ _tag: "ConsecutiveSameRole", index: 1, role: "user" })
 * ```
 *
 * @since 0.5.0
 * @category schemas
 */
export const ConsecutiveSameRole = withRole("ConsecutiveSameRole", Validity.ConsecutiveSameRole)

/**
 * Any `Validity.Violation` from its JSON object, by `_tag`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Message, Validity, ValiditySchema } from "rollmem"
 *
 * // violations as JSON (a report, a log line) and back
 * const found = Validity.violations([Message.assistant("hello")])
 * const json = JSON.stringify(Schema.encodeSync(Schema.Array(ValiditySchema.Violation))(found))
 * // [{"_tag":"FirstTurnNotUser","index":0,"role":"assistant"}]
 * ```
 *
 * @since 0.5.0
 * @category schemas
 */
export const Violation: Schema.Schema<Validity.Violation, Encoded> = Schema.Union(
  FirstTurnNotUser,
  OrphanedToolResult,
  UnansweredToolCall,
  SystemAfterFirstTurn,
  ConsecutiveSameRole
)

/**
 * A violation as JSON: `{ _tag, index, role }` or `{ _tag, index, toolCallId }`.
 *
 * @since 0.5.0
 * @category models
 */
export type Encoded =
  | {
    readonly _tag: "FirstTurnNotUser" | "SystemAfterFirstTurn" | "ConsecutiveSameRole"
    readonly index: number
    readonly role: string
  }
  | { readonly _tag: "OrphanedToolResult" | "UnansweredToolCall"; readonly index: number; readonly toolCallId: string }

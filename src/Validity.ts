/**
 * Would a chat API accept these messages? The public `Validity` module of
 * `rollmem`: {@link violations} lists what a target rejects in a context,
 * each violation with the index of the message at fault, by the rule table
 * of `src/core/validity.ts` (docs/contract.md section 15.2). Pure, no
 * `effect` import: the rules read plain message shapes, and a rollmem
 * `Message` is one. The violations' JSON schema is `ValiditySchema`.
 *
 * @example
 * ```ts
 * import { Message, Validity } from "rollmem"
 *
 * const context = [
 *   Message.tool("42", { toolCallId: "c1" }),
 *   Message.user("and the return flight?")
 * ]
 * Validity.violations(context)
 * // [FirstTurnNotUser { index: 0, role: "tool" }, OrphanedToolResult { index: 0, toolCallId: "c1" }]
 * Validity.isValid(context) // false
 * Validity.isValid(context.slice(1), { provider: "openai" }) // true
 * ```
 *
 * @since 0.2.0
 */
export * from "./core/validity.js"

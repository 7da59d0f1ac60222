/**
 * rollmem on Effect 4: conversation memory (a running summary plus a
 * token-bounded buffer of recent turns) with the same options, semantics
 * and state files as the Effect 3 line.
 *
 * @since 1.0.0
 */
export * from "./Errors.js"
export * as MemoryState from "./schema/MemoryState.js"
export * as Message from "./schema/Message.js"

/**
 * `rollmem/tokenizers`: model tokenizers as `TokenCounter` layers
 * (`o200k_base`, `cl100k_base`, by model name, or through `js-tiktoken`).
 * A subpath of its own so the core import stays light; the encodings load
 * when a layer is first built.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory } from "rollmem"
 * import { layerO200kBase } from "rollmem/tokenizers"
 *
 * const program = RollingMemory.make({ maxTokens: 8000 }).pipe(Effect.provide(layerO200kBase))
 * ```
 *
 * @since 0.1.0
 */
export * from "./layers/Tokenizers.js"

/**
 * `rollmem/tokenizers`: model tokenizers as `TokenCounter` layers
 * (`o200k_base`, `cl100k_base`, by model name, or through `js-tiktoken`),
 * and `loadTokenCounter` for the Promise facade (the same counters as plain
 * functions). A subpath of its own so the core import stays light; the
 * encodings load when a layer is first built or a counter loaded.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory } from "rollmem"
 * import * as Facade from "rollmem/promise"
 * import { layerO200kBase, loadTokenCounter } from "rollmem/tokenizers"
 *
 * const program = RollingMemory.make({ maxTokens: 8000 }).pipe(Effect.provide(layerO200kBase))
 * // the same counter for the Promise facade:
 * const memory = new Facade.RollingMemory({ maxTokens: 8000, summarize: "drop", tokenCounter: await loadTokenCounter("gpt-4o") })
 * ```
 *
 * @since 0.1.0
 */
export * from "./layers/Tokenizers.js"

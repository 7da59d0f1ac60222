/**
 * The context policies' configuration (docs/contract.md section 10), pure
 * (no `effect` import): the decoded options with their defaults as the
 * eviction index and a prune read them. Each line's strategies build their
 * index from {@link indexConfig} and their prunes from {@link pruningOf}.
 *
 * @since 0.4.0
 */
import type { Boundary, Config, Policy } from "./eviction.js"
import type { MessageFields } from "./message.js"
import { DEFAULT_PLACEHOLDER } from "./options.js"

/**
 * When clearing spares the fold (docs/contract.md section 10.5): clearing
 * always runs until the buffer is within the target; with `"target"` the
 * prune folds when clearing did not get there, with `"budget"` (default)
 * only when clearing did not bring the buffer within the budget (the fold
 * then goes down to the target).
 *
 * @since 0.4.0
 */
export type ClearUntil = "target" | "budget"

/** Tool-result clearing, checked (docs/contract.md section 10.5). @since 0.4.0 */
export interface Clearing {
  /** The most recent tool results spared. */
  readonly keep: number
  readonly placeholder: string
  readonly until: ClearUntil
  /** A pass stands only when it frees at least this many tokens (0: any pass). */
  readonly atLeast: number
  /** The tools whose results are never cleared (empty: none). */
  readonly exclude: ReadonlySet<string>
}

/** A memory's pruning configuration, checked. @since 0.4.0 */
export interface Pruning {
  readonly policy: Policy
  readonly boundary: Boundary
  readonly pinSystem: boolean
  readonly clearing: Clearing | undefined
}

/** The index configuration of a pruning configuration. @since 0.4.0 */
export const indexConfig = <M extends MessageFields>(pruning: Pruning | undefined): Config<M> | undefined => {
  if (pruning === undefined) return undefined
  const exclude = pruning.clearing?.exclude
  return {
    boundary: pruning.boundary,
    pinSystem: pruning.pinSystem,
    clearing: pruning.clearing !== undefined,
    excluded: exclude === undefined || exclude.size === 0 ? undefined : (caller, id) => {
      const calls = caller.toolCalls
      for (let i = 0; i < calls.length; i++) if (calls[i].id === id && exclude.has(calls[i].name)) return true
      return false
    }
  }
}

/** The context-policy options of a RollingMemory or a WindowMemory, decoded (`schema/Options.ts`). @since 0.4.0 */
export interface PolicyOptions {
  readonly boundary?: Boundary | undefined
  readonly pinSystem?: boolean | undefined
  readonly clearToolResults?:
    | {
      readonly keep: number
      readonly placeholder?: string | undefined
      readonly until?: ClearUntil | undefined
      readonly atLeast?: number | undefined
      readonly exclude?: ReadonlyArray<string> | undefined
    }
    | undefined
}

/**
 * The pruning configuration of decoded options (`schema/Options.ts` checked
 * them): the budget, the low-water mark (default the budget), the boundary,
 * pinning and clearing with their defaults.
 *
 * @since 0.4.0
 */
export const pruningOf = (
  options: PolicyOptions,
  measure: "tokens" | "messages",
  budget: number,
  target: number | undefined
): Pruning => {
  const clear = options.clearToolResults
  return {
    policy: { measure, budget, target: target ?? budget },
    boundary: options.boundary ?? "aligned",
    pinSystem: options.pinSystem === true,
    clearing: clear === undefined
      ? undefined
      : {
        keep: clear.keep,
        placeholder: clear.placeholder ?? DEFAULT_PLACEHOLDER,
        until: clear.until ?? "budget",
        atLeast: clear.atLeast ?? 0,
        exclude: new Set(clear.exclude ?? [])
      }
  }
}

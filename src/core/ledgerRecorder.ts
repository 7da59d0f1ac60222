/**
 * What the artifact ledger records of the turns a fold evicts (docs/contract.md
 * section 14.2), pure (no effect import), once for both Effect lines: each
 * message's artifacts extracted once (`artifacts.ts`), less those the ledger
 * does not record ({@link records}).
 *
 * @since 0.4.0
 */
import { type Artifact, extractor, type Pattern, type Source, textOf } from "./artifacts.js"

/**
 * The longest `hash` artifact the ledger records, in hexadecimal digits: a
 * git commit id (SHA-1) has 40. A longer run of hexadecimal digits is a
 * content digest (a SHA-256 or SHA-512 sum, as lock files and download
 * checksums hold): data, not a name the work refers to, and 35 to 45 tokens
 * each with o200k_base, the room of five to ten file paths.
 *
 * @since 0.4.0
 */
export const MAX_HASH_DIGITS = 40

/**
 * Whether the ledger records an artifact (docs/contract.md section 14.2):
 * every artifact but a `hash` of more than {@link MAX_HASH_DIGITS} digits.
 * Retention (section 14.1) still counts such a digest: the ledger only
 * leaves it out.
 *
 * @since 0.4.0
 */
export const records = (artifact: Artifact): boolean =>
  artifact.kind !== "hash" || artifact.text.length <= MAX_HASH_DIGITS

/**
 * A memory's ledger: its budget, and the texts it records of evicted messages
 * (see {@link recorder}).
 *
 * @since 0.4.0
 */
export interface Recorder<M extends Source & object> {
  /** The ledger's budget, in the memory's counter's tokens. */
  readonly maxTokens: number
  /**
   * The artifacts the ledger records of `messages`, in order of mention
   * (oldest message first; within one, in the extractor's order); each
   * message extracted once over the recorder's life.
   */
  readonly mentioned: (messages: ReadonlyArray<M>) => Array<string>
}

const defaultExtractor = extractor()

/**
 * The recorder of a `ledger: { maxTokens, patterns? }` option: artifacts
 * found with `patterns` (the default patterns when absent), those
 * {@link records} keeps, each message's extraction cached by the message
 * object.
 *
 * @since 0.4.0
 */
export const recorder = <M extends Source & object>(options: {
  readonly maxTokens: number
  readonly patterns?: ReadonlyArray<Pattern> | undefined
}): Recorder<M> => {
  const { extract } = options.patterns === undefined ? defaultExtractor : extractor(options.patterns)
  const byMessage = new WeakMap<M, ReadonlyArray<string>>()
  return {
    maxTokens: options.maxTokens,
    mentioned: (messages) => {
      const out: Array<string> = []
      for (const message of messages) {
        let found = byMessage.get(message)
        if (found === undefined) {
          const texts: Array<string> = []
          for (const artifact of extract(textOf(message))) if (records(artifact)) texts.push(artifact.text)
          byMessage.set(message, found = texts)
        }
        for (const text of found) out.push(text)
      }
      return out
    }
  }
}

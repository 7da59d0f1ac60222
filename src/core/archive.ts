/**
 * The in-memory archive (docs/contract.md section 17), pure (no `effect`
 * import): each line's `Archive.makeMemory` wraps it. Stores messages by
 * (conversation, position), ignoring a position it already holds, each
 * write that stores a new position the conversation's next fold; searches
 * rank with `recall.ts`, indexing each message once, at the first search
 * after it was stored (a write costs a fold little).
 *
 * @since 0.4.0
 */
import * as Artifacts from "./artifacts.js"
import * as Recall from "./recall.js"

/**
 * What the archive needs of a message: its role and its text's fields.
 *
 * @since 0.4.0
 */
export type Archivable = Exclude<Artifacts.Source, string> & { readonly role: string }

/**
 * An archived message: its conversation, position and fold.
 *
 * @since 0.4.0
 */
export interface Archived<A> {
  readonly conversationId: string
  readonly position: number
  readonly fold: number
  readonly message: A
}

/**
 * A search's match: the archived message with its `score`, `exact` (the
 * query's artifacts it names) and `neighbours` (in position order).
 *
 * @since 0.4.0
 */
export interface Match<A> extends Archived<A> {
  readonly score: number
  readonly exact: number
  readonly neighbours: ReadonlyArray<Archived<A>>
}

/**
 * The options of a search, checked by the caller (`options.ts` `recallOptions`).
 *
 * @since 0.4.0
 */
export interface SearchOptions {
  readonly limit?: number | undefined
  readonly before?: number | undefined
  readonly roles?: ReadonlyArray<string> | undefined
  readonly neighbours?: number | undefined
}

interface Conversation<A> {
  readonly index: Recall.Index
  readonly byPosition: Map<number, Archived<A>>
  /** The archived positions, increasing. */
  readonly positions: Array<number>
  folds: number
  /** Stored since the last search, not yet indexed. */
  unindexed: Array<Archived<A>>
}

const insertionPoint = (positions: ReadonlyArray<number>, position: number): number => {
  if (positions.length === 0 || positions[positions.length - 1] < position) return positions.length
  let lo = 0
  let hi = positions.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (positions[mid] < position) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * An in-memory archive of messages `A`: `append`, `search`, `messages`.
 *
 * @since 0.4.0
 */
export interface Store<A> {
  readonly append: (
    conversationId: string,
    entries: ReadonlyArray<{ readonly position: number; readonly message: A }>
  ) => void
  readonly search: (conversationId: string, query: string, options?: SearchOptions) => ReadonlyArray<Match<A>>
  readonly messages: (conversationId: string) => ReadonlyArray<Archived<A>>
}

/**
 * A new in-memory archive, holding `seed` as they are (empty by default):
 * their fold numbers kept, the first of a position winning; the next write
 * of a conversation is its highest fold plus one.
 *
 * @since 0.4.0
 */
export const makeStore = <A extends Archivable>(seed: ReadonlyArray<Archived<A>> = []): Store<A> => {
  const conversations = new Map<string, Conversation<A>>()
  const conversationOf = (conversationId: string): Conversation<A> => {
    let conversation = conversations.get(conversationId)
    if (conversation === undefined) {
      conversation = { index: Recall.index(), byPosition: new Map(), positions: [], folds: 0, unindexed: [] }
      conversations.set(conversationId, conversation)
    }
    return conversation
  }
  const put = (conversation: Conversation<A>, archived: Archived<A>): void => {
    conversation.byPosition.set(archived.position, archived)
    conversation.positions.splice(insertionPoint(conversation.positions, archived.position), 0, archived.position)
    conversation.unindexed.push(archived)
  }
  for (const row of seed) {
    const conversation = conversationOf(row.conversationId)
    if (conversation.byPosition.has(row.position)) continue
    put(conversation, row)
    if (row.fold > conversation.folds) conversation.folds = row.fold
  }
  return {
    append: (conversationId, entries) => {
      const conversation = conversationOf(conversationId)
      let fold = 0
      for (const { message, position } of entries) {
        if (conversation.byPosition.has(position)) continue
        if (fold === 0) fold = ++conversation.folds
        put(conversation, { conversationId, position, fold, message })
      }
    },
    search: (conversationId, query, options) => {
      const conversation = conversations.get(conversationId)
      if (conversation === undefined) return []
      const around = options?.neighbours ?? 0
      for (const { message, position } of conversation.unindexed) {
        conversation.index.add({ position, role: message.role, text: Artifacts.textOf(message) })
      }
      conversation.unindexed = []
      const hits = conversation.index.search(query, options)
      return hits.map((hit): Match<A> => {
        const archived = conversation.byPosition.get(hit.position)!
        if (around === 0) return { ...archived, score: hit.score, exact: hit.exact, neighbours: [] }
        const at = insertionPoint(conversation.positions, hit.position)
        const neighbours: Array<Archived<A>> = []
        const from = Math.max(0, at - around)
        const to = Math.min(conversation.positions.length, at + around + 1)
        for (let i = from; i < to; i++) {
          if (i !== at) neighbours.push(conversation.byPosition.get(conversation.positions[i])!)
        }
        return { ...archived, score: hit.score, exact: hit.exact, neighbours }
      })
    },
    messages: (conversationId) => {
      const conversation = conversations.get(conversationId)
      return conversation === undefined ? [] : conversation.positions.map((p) => conversation.byPosition.get(p)!)
    }
  }
}

/**
 * A plain log's rows (the key-value and Redis stores' archive), in the
 * order they were written, as archived messages in position order, the last
 * row of a position kept (a write that a failed save left behind is
 * replaced by the committed one).
 *
 * @example
 * ```ts
 * import { lastByPosition } from "./archive.js"
 * lastByPosition("c", [{ position: 2, fold: 1, message: "a" }, { position: 1, fold: 1, message: "b" },
 *   { position: 2, fold: 2, message: "c" }]).map((a) => a.message) // ["b", "c"]
 * ```
 *
 * @since 0.4.0
 */
export const lastByPosition = <A>(
  conversationId: string,
  rows: ReadonlyArray<{ readonly position: number; readonly fold: number; readonly message: A }>
): Array<Archived<A>> => {
  const byPosition = new Map<number, { readonly position: number; readonly fold: number; readonly message: A }>()
  for (const row of rows) byPosition.set(row.position, row)
  return [...byPosition.values()].sort((a, b) => a.position - b.position).map((row) => ({
    conversationId,
    position: row.position,
    fold: row.fold,
    message: row.message
  }))
}

/**
 * What a stored conversation's archive reads during a call (docs/contract.md
 * section 17.2): the store's archived messages and the call's writes held
 * until its save (`pending`, numbered fold 0 until then), a held position
 * replacing a stored one, in position order.
 *
 * @since 0.4.0
 */
export const withHeld = <A>(
  saved: ReadonlyArray<Archived<A>>,
  pending: ReadonlyArray<Archived<A>>,
  held: ReadonlySet<number>
): Array<Archived<A>> =>
  [...saved.filter((a) => !held.has(a.position)), ...pending.map((a) => ({ ...a, fold: 0 }))].sort((a, b) =>
    a.position - b.position
  )

/**
 * A search over the store's archive and a call's held writes as one
 * (docs/contract.md section 17.2): both sides' matches, a held position
 * replacing a stored one, held ones numbered fold 0, in one order (exact
 * artifacts, then the query's terms held, then its words as written, then
 * the score, then the newer: `recall.ts` `compare`), the first `limit`.
 *
 * @since 0.4.0
 */
export const searchWithHeld = <A extends Archivable>(
  query: string,
  saved: ReadonlyArray<Match<A>>,
  pending: ReadonlyArray<Match<A>>,
  held: ReadonlySet<number>,
  limit: number = Recall.DEFAULT_LIMIT
): Array<Match<A>> => {
  const wanted = [...new Set(Recall.terms(query))]
  const written = [...Recall.words(query)]
  const hit = (match: Match<A>): Recall.Hit => {
    const text = Artifacts.textOf(match.message)
    const words = new Set(Recall.terms(text))
    const forms = Recall.words(text)
    return {
      position: match.position,
      score: match.score,
      exact: match.exact,
      terms: wanted.filter((t) => words.has(t)).length,
      cased: written.filter((w) => forms.has(w)).length
    }
  }
  const all = [...saved.filter((m) => !held.has(m.position)), ...pending.map((m) => ({ ...m, fold: 0 }))]
  const byPosition = new Map(all.map((m) => [m.position, m]))
  return all.map(hit).sort(Recall.compare).slice(0, limit).map((h) => byPosition.get(h.position)!)
}

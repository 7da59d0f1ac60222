/**
 * Splitting a stream of bytes into lines without ever holding more than one
 * line: what lets `rollmem replay` read a JSON Lines file of any size, and
 * refuse one line too long to become a JavaScript string while still
 * reading the lines after it.
 *
 * @since 0.2.0
 */
import * as Chunk from "effect/Chunk"
import * as Stream from "effect/Stream"

/**
 * The longest line read, in bytes: V8's longest string (2^29 - 24 UTF-16
 * code units, about 512 MiB); a line of more bytes may not fit in a string
 * and is refused (see {@link Line}).
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_LINE_BYTES = 2 ** 29 - 24

/**
 * One line (1-based `line`), its text without the line break (`\n` or
 * `\r\n`), or `tooLong` with its length in bytes when it exceeds the limit
 * (its bytes are skipped, never held).
 *
 * @since 0.2.0
 * @category models
 */
export type Line =
  | { readonly _tag: "Text"; readonly line: number; readonly text: string; readonly bytes: number }
  | { readonly _tag: "TooLong"; readonly line: number; readonly bytes: number }

/**
 * A stateful splitter: `push` a chunk, get the lines it completes; `end`
 * gives the last line (when the input does not end with a line break).
 *
 * @since 0.2.0
 * @category constructors
 */
export const splitter = (limit: number = MAX_LINE_BYTES) => {
  const decoder = new TextDecoder("utf-8")
  let pieces: Array<Uint8Array> = []
  let size = 0
  let line = 1
  let tooLong = false
  const finish = (): Line => {
    const n = line++
    if (tooLong) {
      const out: Line = { _tag: "TooLong", line: n, bytes: size }
      pieces = []
      size = 0
      tooLong = false
      return out
    }
    const whole = pieces.length === 1 ? pieces[0] : concat(pieces, size)
    const end = whole.length > 0 && whole[whole.length - 1] === 0x0d ? whole.length - 1 : whole.length
    const text = decoder.decode(whole.subarray(0, end))
    pieces = []
    const bytes = size
    size = 0
    return { _tag: "Text", line: n, text, bytes }
  }
  const add = (piece: Uint8Array) => {
    size += piece.length
    if (tooLong) return
    if (size > limit) {
      tooLong = true
      pieces = []
      return
    }
    if (piece.length > 0) pieces.push(piece)
  }
  return {
    push: (chunk: Uint8Array): Array<Line> => {
      const out: Array<Line> = []
      let start = 0
      for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, start)) {
        add(chunk.subarray(start, i))
        out.push(finish())
        start = i + 1
      }
      // a copy: the stream may reuse its buffer
      if (start < chunk.length) add(chunk.slice(start))
      return out
    },
    end: (): Array<Line> => size > 0 || tooLong ? [finish()] : []
  }
}

const concat = (pieces: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  const out = new Uint8Array(size)
  let at = 0
  for (const p of pieces) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/**
 * The lines of a byte stream, one at a time (see {@link splitter}).
 *
 * @since 0.2.0
 * @category combinators
 */
export const lines = <E, R>(bytes: Stream.Stream<Uint8Array, E, R>, limit?: number): Stream.Stream<Line, E, R> =>
  Stream.suspend(() => {
    const split = splitter(limit)
    return Stream.concat(
      Stream.mapChunks(bytes, (chunks) => Chunk.flatMap(chunks, (chunk) => Chunk.unsafeFromArray(split.push(chunk)))),
      Stream.suspend(() => Stream.fromIterable(split.end()))
    )
  })

/**
 * What Python's `json.dumps(value)` writes, with its defaults: `", "` and
 * `": "` separators, `ensure_ascii=True` (every character outside printable
 * ASCII as `\uXXXX`, lowercase hex, astral characters as surrogate pairs),
 * `\n \r \t \b \f` as short escapes, keys in insertion order, floats in
 * Python's `repr` (`1e-05`, `1.5e+16`).
 *
 * JavaScript cannot tell an integral float from an int, so `2.0` is written
 * `2`; and it orders integer-like object keys first. States written here
 * therefore match Python byte for byte only when their metadata has neither.
 */

const shortEscapes: Record<string, string> = {
  "\"": "\\\"",
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f"
}

/** A string as Python's `json.dumps` writes it with `ensure_ascii=True`. */
export const pythonString = (s: string): string => {
  let out = "\""
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]
    const code = s.charCodeAt(i)
    const short = shortEscapes[ch]
    if (short !== undefined) out += short
    else if (code >= 0x20 && code <= 0x7e) out += ch
    else out += `\\u${code.toString(16).padStart(4, "0")}`
  }
  return `${out}"`
}

/** A number as Python writes it: ints as digits, floats in `repr` form. */
export const pythonNumber = (n: number): string => {
  if (!Number.isFinite(n)) throw new Error(`Python writes ${n} as a non-JSON literal`)
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return String(n)
  const [mantissa, exponentText] = n.toExponential().split("e")
  const exponent = Number(exponentText)
  if (exponent >= -4 && exponent < 16) return String(n)
  const sign = exponent < 0 ? "-" : "+"
  return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`
}

/** `json.dumps(value)` with Python's defaults. */
export const pythonDumps = (value: unknown): string => {
  if (value === null) return "null"
  if (value === true) return "true"
  if (value === false) return "false"
  if (typeof value === "number") return pythonNumber(value)
  if (typeof value === "string") return pythonString(value)
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(", ")}]`
  if (typeof value === "object") {
    const entries = Object.keys(value).map((key) =>
      `${pythonString(key)}: ${pythonDumps((value as Record<string, unknown>)[key])}`
    )
    return `{${entries.join(", ")}}`
  }
  throw new Error(`not JSON data: ${typeof value}`)
}

/**
 * Where the tests find the real transcripts: the folder named by
 * `ROLLMEM_DATA`, else `../shared/data` next to the repository. The data is
 * read in place, never copied into the repository. Tests on it are skipped
 * when it is absent; `dataNotice.ts` says so once per run.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

/** The folder of real transcripts (`$ROLLMEM_DATA`, else `../shared/data` from the repository root). */
export const dataDir: string = process.env.ROLLMEM_DATA !== undefined && process.env.ROLLMEM_DATA !== ""
  ? path.resolve(process.env.ROLLMEM_DATA)
  : path.resolve(repoRoot, "..", "shared", "data")

/** The transcript files the tests read, JSON Lines of `{"id", "messages": [...]}`. */
export const DATA_FILES = [
  "conversations-chat.jsonl",
  "conversations-agentic.jsonl",
  "conversations-tooltalk.jsonl"
] as const

/** The path of a transcript file in {@link dataDir}. */
export const dataPath = (file: string): string => path.join(dataDir, file)

/** Whether the transcript `file` is present (tests on it are skipped otherwise). */
export const hasData = (file: string): boolean => fs.existsSync(dataPath(file))

/** The non-blank lines of a transcript file; none when it is absent. */
export const dataLines = (file: string): ReadonlyArray<string> =>
  hasData(file) ? fs.readFileSync(dataPath(file), "utf8").split("\n").filter((line) => line.trim() !== "") : []

/** The line printed once per test run when some transcripts are absent, or `undefined` when all are present. */
export const absentNotice = (): string | undefined => {
  const missing = DATA_FILES.filter((file) => !hasData(file))
  if (missing.length === 0) return undefined
  return `rollmem tests: the tests on real transcripts are skipped: ${missing.join(", ")} not found in ${dataDir}. ` +
    `Set ROLLMEM_DATA to the folder that holds them to run them (ROLLMEM_DATA=/path/to/data npm test).`
}

/**
 * Vitest global setup: says once, at the start of a run, why the tests on
 * real transcripts are skipped and how to point them at the data.
 */
import { absentNotice } from "./data.js"

export default function setup(): void {
  const notice = absentNotice()
  if (notice !== undefined) console.log(`\n${notice}\n`)
}

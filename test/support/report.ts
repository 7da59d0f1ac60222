/** Shared by the report tests: the hostile fixture and reading a report's embedded data. */
import * as path from "node:path"
import type { ReportDocument } from "../../src/report/Data.js"
import { repoRoot } from "./cli.js"

/** One conversation whose id, contents and tool call arguments hold HTML and `</script>`. */
export const hostile = path.join(repoRoot, "test", "fixtures", "report", "hostile.jsonl")
export const hostileId = "<b>job</b></script><script>window.__pwned=1</script>"

/** The document embedded in a report page. */
export const embedded = (page: string): ReportDocument => {
  const match = /<script type="application\/json" id="rollmem-data">(.*?)<\/script>/s.exec(page)
  if (match === null) throw new Error("no embedded data")
  return JSON.parse(match[1]) as ReportDocument
}

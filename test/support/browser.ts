/**
 * Headless Chromium for the report tests: Debian's `chromium` driven by
 * playwright-core through its `executablePath` (no browser download).
 * `CHROMIUM` overrides the path. Where no browser is installed the tests
 * skip with {@link missingBrowser} saying why, except under `CI=true`, where
 * `.ci/run` installs it and a missing browser is a failure.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type BrowserContext, chromium } from "playwright-core"

export const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium"

/** Why the browser tests cannot run here; undefined when they can. */
export const missingBrowser: string | undefined = fs.existsSync(executablePath)
  ? undefined
  : `no Chromium at ${executablePath} (install Debian's chromium: apt-get install -y chromium, or set CHROMIUM)`

/** Whether a missing browser fails the run instead of skipping (on CI, which installs it). */
export const requireBrowser = process.env.CI === "true"

/**
 * Launches headless Chromium with a fresh profile (its --user-data-dir, which
 * playwright passes itself); `close` also removes the profile.
 */
export const launch = async (): Promise<{ readonly browser: BrowserContext; readonly close: () => Promise<void> }> => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-chromium-"))
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: [
      "--no-sandbox",
      "--headless",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })
  return {
    browser,
    close: async () => {
      await browser.close()
      fs.rmSync(profile, { recursive: true, force: true })
    }
  }
}

/** Where the test run keeps its artifacts (gitignored). */
export const artifacts = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "..", "test-artifacts")

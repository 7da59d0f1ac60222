/**
 * Preloaded (`node --import`) into a `rollmem` child process so that it
 * takes its stderr for a terminal and draws its progress bar there: a test
 * then knows the replay has started when the first frame arrives.
 */
Object.defineProperty(process.stderr, "isTTY", { value: true })

/**
 * Module hooks of `signalOnLoad.ts`: tells the main thread, once, when an
 * Effect module (`effect`, `@effect/...`) is first resolved.
 */
let port
let told = false

export const initialize = (data) => {
  port = data.port
}

export const resolve = (specifier, context, next) => {
  if (!told && /^(?:effect|@effect\/)/.test(specifier)) {
    told = true
    port.postMessage("loading")
  }
  return next(specifier, context)
}

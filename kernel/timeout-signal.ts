/**
 * A signal that aborts after `ms` with a `TimeoutError`, or when any of `signals` aborts.
 *
 * Not `AbortSignal.timeout(ms)` joined to them by `AbortSignal.any`: Node holds a timeout signal only
 * weakly, from its timer and from a combined signal, so once garbage collection takes it the combined
 * signal never aborts (nodejs/node#57736). A consensus validator's fetch then never gave up, and with it the
 * round's timeout: under load the chain stopped. Here the timer holds the controller itself.
 */
export function timeoutSignal(ms: number, ...signals: AbortSignal[]): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`The operation timed out after ${ms} ms`, 'TimeoutError')),
    ms,
  );
  // Like AbortSignal.timeout: a pending deadline does not keep the process running.
  timer.unref();
  return signals.length === 0 ? controller.signal : AbortSignal.any([...signals, controller.signal]);
}

/** Whether a hook's result must be awaited: hooks may answer synchronously, and awaiting costs a turn. */
export function isPromise<T>(value: unknown): value is Promise<T> {
  // Most results are primitives or plain objects; test the cheap thing first.
  return typeof value === 'object' && value !== null && typeof (value as Promise<T>).then === 'function';
}

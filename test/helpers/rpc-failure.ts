import { expect } from 'vitest';
import { RpcError } from '../../sdk/index.js';

/** The RpcError a call fails with; fails the test when it succeeds or throws anything else. */
export async function failure(promise: Promise<unknown>, what = 'the call'): Promise<RpcError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `${what} should fail with an RpcError`).toBeInstanceOf(RpcError);
  return error as RpcError;
}

import type { GuardRefusal, GuardRequest } from '../plugin.js';

export interface RegisteredGuard {
  readonly owner: string;
  readonly name: string;
  check(request: GuardRequest): GuardRefusal | undefined;
}

/**
 * The request guards of every plugin, run in plugin order on every JSON-RPC request (HTTP body,
 * WebSocket message), every WebSocket handshake and every protected route — once, in the transport,
 * before any call runs, so no method, batch member or transport can skip them.
 */
export class GuardChain {
  private readonly guards: RegisteredGuard[] = [];

  add(guard: RegisteredGuard): void {
    this.guards.push(guard);
  }

  get size(): number {
    return this.guards.length;
  }

  run(request: GuardRequest): GuardRefusal | undefined {
    for (const guard of this.guards) {
      const refusal = guard.check(request);
      if (refusal) return refusal;
    }
    return undefined;
  }

  list(): readonly RegisteredGuard[] {
    return this.guards;
  }
}

/** A refusal as the JSON-RPC error body of an HTTP response or WebSocket reply. */
export function refusalBody(refusal: GuardRefusal, extraData?: Record<string, unknown>): string {
  const { code, message, data } = refusal.error;
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message, data: { ...data, ...extraData } } });
}

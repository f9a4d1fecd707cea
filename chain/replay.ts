import type { Logger } from '../kernel/log.js';
import type { SignedTransaction } from '../sdk/transaction.js';
import { executeTransactions } from './executor.js';
import type { BlockEnv } from './contract.js';
import type { StateReader } from './state/overlay.js';
import type { TxKindRegistry } from './tx-kinds.js';

/** Reads a past block's state (from history: asynchronously). */
export type AsyncStateRead = (key: string) => Promise<Uint8Array | undefined>;

/** The state inside a block after some of its transactions: where a traced one starts. */
export interface BlockReplay {
  readonly env: BlockEnv;
  /** The block's transactions, all of them. */
  readonly txs: readonly SignedTransaction[];
  /** The state after the replayed transactions (the parent's where they did not write). */
  readonly read: AsyncStateRead;
}

/** A replay of a whole block: with `endBlock` its end steps run after its transactions (what a system transaction's trace needs). */
export interface ReplayOptions {
  readonly endBlock?: boolean;
  /** Told before each pass: what a pass observed is the last pass's (the one that read every key). */
  readonly beforePass?: () => void;
}

/** The most passes a replay takes: each fetches at least one more key, so it ends; this bounds a pathological one. */
const MAX_PASSES = 10_000;

/**
 * A past state for execution, which reads synchronously: values fetched from history so far, and the
 * keys asked for that were not fetched yet (read as absent, and fetched before the next pass).
 */
class PrefetchedState implements StateReader {
  private readonly values = new Map<string, Uint8Array | undefined>();
  readonly missed = new Set<string>();

  constructor(private readonly source: AsyncStateRead) {}

  get(key: string): Uint8Array | undefined {
    if (this.values.has(key)) return this.values.get(key);
    this.missed.add(key);
    return undefined;
  }

  async fetchMissed(): Promise<void> {
    const keys = [...this.missed];
    this.missed.clear();
    const values = await Promise.all(keys.map((key) => this.source(key)));
    keys.forEach((key, i) => {
      this.values.set(key, values[i]);
    });
  }
}

/**
 * Re-executes `txs` (the first transactions of a committed block) on the parent block's state, without
 * the block's end steps, for tracers. Execution reads state synchronously and a past state comes from
 * history asynchronously, so it runs in passes: each pass records the keys it missed, they are fetched,
 * and the transactions run again until a pass misses nothing (a few passes: each fetches what the
 * values found so far lead to). The last pass is the block's own execution of them, which it checks.
 */
/** A replay for a request that ran out of the request's time. */
export class ReplayDeadlineError extends Error {
  override name = 'ReplayDeadlineError';
  constructor(height: number) {
    super(`execution aborted: replaying block ${height} up to the transaction took longer than the request may run`);
  }
}

export async function replayTransactions(
  txs: readonly SignedTransaction[],
  all: readonly SignedTransaction[],
  env: BlockEnv,
  parent: AsyncStateRead,
  kinds: TxKindRegistry,
  log: Logger,
  deadline?: number,
  { endBlock = false, beforePass }: ReplayOptions = {},
): Promise<BlockReplay> {
  const state = new PrefetchedState(parent);
  // A pass on missing values can make a kind fail in ways the block never did: say nothing of those.
  const quiet = log.child({ replay: env.height }, { level: 'silent' });
  for (let pass = 1; pass <= MAX_PASSES; pass++) {
    beforePass?.();
    let result;
    try {
      result = await executeTransactions(txs, env, state, kinds, quiet, false, undefined, {
        endBlock,
        ...(deadline === undefined ? {} : { deadline }),
      });
    } catch (error) {
      // An end step that met a key not fetched yet may throw (it trusts its own state to be there):
      // fetched, the next pass has it. Thrown with every key read, it is a real failure.
      if (state.missed.size === 0) throw error;
      await state.fetchMissed();
      continue;
    }
    if (deadline !== undefined && result.included.length < txs.length && performance.now() > deadline)
      throw new ReplayDeadlineError(env.height);
    if (state.missed.size > 0) {
      await state.fetchMissed();
      continue;
    }
    if (result.included.length !== txs.length)
      throw new Error(`replaying block ${env.height}: ${result.rejected[0]?.message ?? 'a transaction was left out'}`);
    const overlay = result.overlay;
    return {
      env,
      txs: all,
      read: async (key) => {
        const value = overlay.get(key);
        if (!state.missed.has(key)) return value;
        await state.fetchMissed();
        return overlay.get(key);
      },
    };
  }
  throw new Error(`replaying block ${env.height}: no pass read every key it needed in ${MAX_PASSES} passes`);
}

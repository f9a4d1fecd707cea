import { Worker } from 'node:worker_threads';
import type { CustomPrecompile, ExecResult, getActivePrecompiles, PrecompileInput } from '@ethereumjs/evm';
import { EVMError } from './evm-error.js';
import type { Common, Hardfork } from '@ethereumjs/common';
import { Address as EvmAddress } from '@ethereumjs/util';
import { fromHex } from '../../sdk/bytes.js';

// From dist/ the worker sits beside this file; tests run the TypeScript sources and use the build's copy.
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/plugins/evm/precompile-worker.js', import.meta.url)
  : new URL('./precompile-worker.js', import.meta.url);

/**
 * The standard precompiles one call of which can compute for a long time: MODEXP, the BN254
 * pairing, BLAKE2F (one gas a round: 2^24 rounds take seconds), the KZG point evaluation and the
 * BLS12-381 operations. Everything else is cheap per call, or (ECRECOVER) native.
 */
const LONG_RUNNING = ['05', '08', '09', '0a', '0b', '0c', '0d', '0e', '0f', '10', '11'].map(
  (last) => `${'00'.repeat(19)}${last}`,
);

/**
 * A call that can pay for this much gas runs on the worker; one that cannot is cheap enough to run
 * here (the slowest of them, BLAKE2F, does about 4,000 gas a millisecond).
 */
const OFFLOAD_FROM_GAS = 20_000n;

export interface OffloadRequest {
  readonly id: number;
  /** 40 hex digits, no 0x. */
  readonly address: string;
  readonly data: Uint8Array;
  readonly gasLimit: bigint;
}

export type OffloadReply = { readonly id: number } & (
  | { readonly gasUsed: bigint; readonly returnValue: Uint8Array; readonly error?: string }
  | { readonly thrown: string }
);

/**
 * Runs the long-running standard precompiles on a worker thread, so that one call (a BLAKE2F of
 * millions of rounds, a pairing of hundreds of points) does not hold the node's event loop: the EVM
 * awaits the answer, and requests, blocks and votes go on meanwhile. Results are those of the same
 * library functions; a call too cheap to be worth the trip runs here.
 */
export class PrecompileOffload {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, (reply: OffloadReply) => void>();
  private nextId = 1;

  constructor(
    private readonly chainId: number,
    private readonly hardfork: Hardfork,
  ) {}

  /** The EVM's custom precompiles that replace the long-running standard ones active at `common`'s hardfork. */
  customPrecompiles(common: Common, activePrecompiles: typeof getActivePrecompiles): CustomPrecompile[] {
    const active = activePrecompiles(common);
    return LONG_RUNNING.flatMap((address) => {
      const inline = active.get(address);
      if (!inline) return [];
      return [
        {
          address: new EvmAddress(fromHex(`0x${address}`)),
          function: (input: PrecompileInput): Promise<ExecResult> | ExecResult =>
            input.gasLimit < OFFLOAD_FROM_GAS ? inline(input) : this.remote(address, input),
        },
      ];
    });
  }

  private async remote(address: string, input: PrecompileInput): Promise<ExecResult> {
    const id = this.nextId++;
    const reply = await new Promise<OffloadReply>((resolve) => {
      const worker = this.workerOf();
      // Held while it has work in hand (a script waiting on it must not exit), not otherwise.
      if (this.waiting.size === 0) worker.ref();
      this.waiting.set(id, resolve);
      worker.postMessage({ id, address, data: input.data, gasLimit: input.gasLimit } satisfies OffloadRequest);
    });
    if ('thrown' in reply) throw new Error(`precompile 0x${address} failed on its worker: ${reply.thrown}`);
    return {
      executionGasUsed: reply.gasUsed,
      returnValue: reply.returnValue,
      ...(reply.error !== undefined ? { exceptionError: new EVMError(reply.error as never) } : {}),
    };
  }

  private workerOf(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_URL, { workerData: { chainId: this.chainId, hardfork: this.hardfork } });
    worker.on('message', (reply: OffloadReply) => {
      const resolve = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      resolve?.(reply);
    });
    worker.on('error', (error) => this.fail(worker, error.message));
    worker.on('exit', (code) => this.fail(worker, `the worker exited (code ${code})`));
    // Idle, it must not keep a process alive that has nothing else to do (unref'd after the listeners: adding one refs its port again).
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** A worker that died fails what it had in hand; the next call starts another. */
  private fail(worker: Worker, why: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    for (const [id, resolve] of this.waiting) resolve({ id, thrown: why });
    this.waiting.clear();
  }
}

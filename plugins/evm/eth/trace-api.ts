import { isRpcError } from '../../../sdk/errors.js';
import type { CallbackTrace, EvmService } from '../service.js';
import type { EvmOutcome } from '../runner.js';
import { CallTracer, type CallTracerOptions } from '../trace/call-tracer.js';
import { PrestateTracer } from '../trace/prestate-tracer.js';
import { StructLogger, type StructLoggerOptions } from '../trace/struct-logger.js';
import { DEFAULT_TRACE_LIMITS, TraceAbortedError, type Tracer, type TracedRun } from '../trace/tracer.js';
import type { BlockParam } from './block-tag.js';
import type { EthApi, EthCallObject } from './api.js';
import { EthRpcError } from './errors.js';
import { EvmDeadlineError } from '../run-control.js';
import { ReplayDeadlineError } from '../../../chain/replay.js';
import { hexOfAddress } from '../../../sdk/address.js';
import { isSystemRaw } from '../../../chain/system-transactions.js';
import { accountKey, encodeAccount, type Account } from '../../../chain/state/accounts.js';
import type { StateSink } from '../state-manager.js';

/** geth's trace options: no `tracer` for the struct logger, `callTracer` for the call tree. */
export interface TraceConfig extends StructLoggerOptions {
  readonly tracer?: string;
  readonly tracerConfig?: CallTracerOptions;
  /** geth's duration text ("5s", "500ms"): how long the trace may take, at most the node's limit. */
  readonly timeout?: string;
}

/** The tracers served. */
export const TRACERS = ['callTracer', 'prestateTracer'] as const;

/** The most a trace may ask for with `timeout`. */
const MAX_TIMEOUT_MS = 30_000;

function timeoutOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_TRACE_LIMITS.timeoutMs;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(text);
  if (!match)
    throw new EthRpcError(-32602, `invalid params: timeout "${text}" is not a duration such as "5s" or "500ms"`);
  const ms = Number(match[1]) * (match[2] === 'ms' ? 1 : match[2] === 's' ? 1_000 : 60_000);
  return Math.min(ms, MAX_TIMEOUT_MS);
}

function tracerOf(config: TraceConfig | undefined): Tracer {
  const limits = { ...DEFAULT_TRACE_LIMITS, timeoutMs: timeoutOf(config?.timeout) };
  if (config?.tracer === undefined) return new StructLogger(config ?? {}, limits);
  if (config.tracer === 'callTracer') return new CallTracer(config.tracerConfig ?? {}, limits);
  if (config.tracer === 'prestateTracer') return new PrestateTracer(diffMode(config));
  throw new EthRpcError(
    -32602,
    `invalid params: tracer "${config.tracer}" is not served here; use the struct logger (no tracer) or ${TRACERS.map((t) => `"${t}"`).join(', ')}`,
  );
}

/** Whether a trace asks for the prestateTracer's diff of the state before and after the run. */
const diffMode = (config: TraceConfig | undefined): boolean =>
  config?.tracer === 'prestateTracer' && (config.tracerConfig as { diffMode?: unknown } | undefined)?.diffMode === true;

/** What a traced run wrote (a replay keeps nothing): read back over the state it began on, the state it left. */
class RunWrites {
  private readonly accounts = new Map<string, Account>();
  private readonly values = new Map<string, Uint8Array | undefined>();
  readonly sink: StateSink = {
    setAccount: (address, account) => {
      this.accounts.set(accountKey(address), account);
    },
    writeState: (key, value) => {
      this.values.set(key, value);
    },
  };

  over(before: (key: string) => Promise<Uint8Array | undefined>): (key: string) => Promise<Uint8Array | undefined> {
    return async (key) => {
      const account = this.accounts.get(key);
      if (account) return encodeAccount(account);
      return this.values.has(key) ? this.values.get(key) : before(key);
    };
  }
}

/** Runs a traced run; a trace stopped by its limits answers geth's -32000 with the reason. */
async function traced(
  tracer: Tracer,
  run: () => Promise<{ outcome: EvmOutcome; run: TracedRun }>,
  before?: (key: string) => Promise<Uint8Array | undefined>,
  after?: (key: string) => Promise<Uint8Array | undefined>,
): Promise<unknown> {
  try {
    const done = await run();
    if (tracer.settle) {
      if (!before) throw new EthRpcError(-32000, 'this tracer does not trace a system transaction');
      await tracer.settle(before, done.run, after);
    }
    return tracer.result(done.outcome, done.run);
  } catch (error) {
    // A replay of the block's earlier transactions that ran out of time is answered where it runs (transaction()).
    if (error instanceof TraceAbortedError || error instanceof EvmDeadlineError)
      throw new EthRpcError(-32000, error.message);
    throw error;
  }
}

/**
 * `debug_traceTransaction` and `debug_traceCall`, what `cast run --trace`-style tools and explorers
 * read: a mined transaction is run again on the state it ran on (its block's parent state with the
 * block's earlier transactions applied), a call on a block's state, each with a tracer attached.
 */
export class TraceApi {
  constructor(
    private readonly evm: EvmService,
    private readonly eth: EthApi,
  ) {}

  async transaction(rawHash: string, config: TraceConfig | undefined): Promise<unknown> {
    const hash = rawHash.toLowerCase();
    const tracer = tracerOf(config);
    const chain = this.evm.chain;
    const stored = await chain.getRawTransaction(hash);
    if (!stored) throw new EthRpcError(-32000, `transaction ${hash} not found`);
    // The trace's timeout covers replaying the block's earlier transactions too.
    const deadline = performance.now() + timeoutOf(config?.timeout);
    if (isSystemRaw(stored.raw)) return this.systemTransaction(hash, stored.height, config, deadline);
    const replay = await chain.replayPrefix(stored.height, stored.index, deadline).catch((error: unknown) => {
      throw error instanceof ReplayDeadlineError ? new EthRpcError(-32000, error.message) : error;
    });
    const signed = replay.txs[stored.index]!;
    const tx = this.evm.transactionOf(signed);
    if (!tx)
      throw new EthRpcError(
        -32000,
        `transaction ${hash} is a ${signed.kind} transaction, which does not run in the EVM: nothing to trace`,
      );
    const { env } = replay;
    const writes = new RunWrites();
    return traced(
      tracer,
      async () => ({
        outcome: await this.evm.runner.runTransaction(
          tx,
          replay.read,
          writes.sink,
          env,
          { creator: signed.from, height: env.height },
          tracer,
          { runClass: 'request', budgetMs: Math.max(0, deadline - performance.now()) },
        ),
        run: {
          from: tx.getSenderAddress().toString(),
          ...(tx.to ? { to: tx.to.toString() } : {}),
          value: tx.value,
          gasLimit: tx.gasLimit,
          input: tx.data,
        },
      }),
      replay.read,
      writes.over(replay.read),
    );
  }

  /**
   * A system transaction (a callback the chain made at its block's end): the whole block is replayed,
   * its end steps too, and the callback traced when the replay makes it.
   */
  private async systemTransaction(
    hash: string,
    height: number,
    config: TraceConfig | undefined,
    deadline: number,
  ): Promise<unknown> {
    const wanted: CallbackTrace = { make: () => tracerOf(config) };
    this.evm.tracing.set(hash, wanted);
    try {
      await this.evm.chain
        .replayPrefix(height, Number.MAX_SAFE_INTEGER, deadline, {
          endBlock: true,
          beforePass: () => {
            wanted.seen = undefined;
          },
        })
        .catch((error: unknown) => {
          throw error instanceof ReplayDeadlineError ? new EthRpcError(-32000, error.message) : error;
        });
    } finally {
      this.evm.tracing.delete(hash);
    }
    const seen = wanted.seen;
    if (!seen) throw new EthRpcError(-32000, `transaction ${hash}: replaying block ${height} did not make it`);
    return traced(seen.tracer, async () => ({ outcome: seen.outcome, run: seen.run }));
  }

  /**
   * geth's `debug_traceBlockBy*`: each transaction traced as `debug_traceTransaction` traces it (each
   * one replays the block up to it: a block of n transactions costs n replays), one that cannot be
   * traced answered with its error in its place.
   */
  async block(hashes: readonly string[], config: TraceConfig | undefined): Promise<unknown[]> {
    const traces: unknown[] = [];
    for (const txHash of hashes) {
      try {
        traces.push({ txHash, result: await this.transaction(txHash, config) });
      } catch (error) {
        if (!(error instanceof EthRpcError)) throw error;
        traces.push({ txHash, error: error.message });
      }
    }
    return traces;
  }

  async call(call: EthCallObject, block: BlockParam | undefined, config: TraceConfig | undefined): Promise<unknown> {
    if (diffMode(config))
      throw new EthRpcError(
        -32602,
        "invalid params: prestateTracer's diffMode traces a mined transaction here (debug_traceTransaction); trace a call without it",
      );
    const tracer = tracerOf(config);
    const before = await this.eth.stateBefore(block);
    return traced(
      tracer,
      async () => {
        const { outcome, request } = await this.eth.simulateTraced(call, block, tracer);
        return {
          outcome,
          run: {
            from: hexOfAddress(request.from),
            ...(request.to ? { to: hexOfAddress(request.to) } : {}),
            value: request.value,
            gasLimit: request.gasLimit,
            input: request.data,
          },
        };
      },
      before,
    ).catch((error: unknown) => {
      throw isRpcError(error) ? error : new EthRpcError(-32000, (error as Error).message);
    });
  }
}

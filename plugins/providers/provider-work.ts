import type { Address } from '../../sdk/address.js';
import { signTransaction } from '../../sdk/transaction.js';
import type { ChainReader, TxSubmitter } from '../../chain/capabilities.js';
import type { ScopedEvents } from '../../kernel/events.js';
import type { Logger } from '../../kernel/log.js';
import type { OperatorKeys } from '../../keys/node-keys.js';

/**
 * Runs `pass` one at a time: a call while one runs makes another follow it (a provider's work on each
 * block, where blocks may come faster than a pass ends). Errors are logged, never thrown.
 */
export class SerialPasses {
  private running = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly log: Logger,
    private readonly what: string,
  ) {}

  run(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.pass()
      .catch((error: unknown) => this.log.error({ err: error }, `${this.what} failed`))
      .finally(() => {
        this.running = false;
        if (this.again && !this.stopped) {
          this.again = false;
          this.run();
        }
      });
  }

  stop(): void {
    this.stopped = true;
  }
}

export interface OperatorTxDeps {
  readonly chain: ChainReader;
  readonly submitter: TxSubmitter;
  readonly keys: OperatorKeys;
  readonly log: Logger;
}

/** What a provider's per-block work (the compute runner, the storage deal keeper) is built with. */
export interface ProviderWorkOptions extends OperatorTxDeps {
  /** This node's operator while its registration is active, else undefined. */
  readonly operator: () => Promise<Address | undefined>;
  readonly events: ScopedEvents;
}

/** Blocks to wait for a sent transaction of provider work to be mined before sending it again (it may have been dropped). */
export const RESEND_AFTER_BLOCKS = 5;

/** Whether to send (again): never sent, or sent `RESEND_AFTER_BLOCKS` or more ago and no longer pending. */
export function resendDue(
  submitter: Pick<TxSubmitter, 'isPending'>,
  sent: { readonly tx: string; readonly at: number } | undefined,
  height: number,
): boolean {
  return !sent || (!submitter.isPending(sent.tx) && height - sent.at >= RESEND_AFTER_BLOCKS);
}

/**
 * Signs a transaction of this node's provider work with the operator's key (next nonce, pending ones
 * counted) and submits it; its hash, or undefined when the key is gone or the mempool refused it
 * (logged: the work tries again on a later block).
 */
export function submitAsOperator(
  deps: OperatorTxDeps,
  operator: Address,
  kind: string,
  payload: Record<string, unknown>,
): string | undefined {
  const key = deps.keys.get(operator);
  if (!key) {
    deps.log.error({ operator, kind }, `this node no longer holds the operator key: cannot send ${kind}`);
    return undefined;
  }
  const tx = signTransaction(
    { chainId: deps.chain.head.chainId, kind, nonce: deps.submitter.nextNonce(operator), payload: payload as never },
    key,
  );
  try {
    // Not acknowledged to anyone: the work submits again on a later block if the journal write fails.
    deps.submitter
      .submit(tx)
      .catch((error: unknown) => deps.log.warn({ kind, err: error }, `${kind} admitted but not journaled`));
    return tx.hash;
  } catch (error) {
    deps.log.warn({ kind, err: error }, `${kind} not admitted; retrying on a later block`);
    return undefined;
  }
}

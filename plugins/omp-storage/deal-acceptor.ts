import type { Address } from '../../sdk/address.js';
import { decode } from '../../sdk/encoding.js';
import { signTransaction } from '../../sdk/transaction.js';
import type { ChainReader, TxSubmitter } from '../../chain/capabilities.js';
import { indexCount } from '../../chain/state/indexed.js';
import type { ScopedEvents } from '../../kernel/events.js';
import type { Logger } from '../../kernel/log.js';
import type { OperatorKeys } from '../../keys/node-keys.js';
import type { ObjectStore } from '../../objects/store.js';
import { providerDealIndex, readDeal } from '../omp/deals/state.js';

/** Blocks after which an acceptance that left but is no longer pending (and not in a block) is sent again. */
const RESEND_AFTER_BLOCKS = 5;

export interface DealAcceptorOptions {
  readonly chain: ChainReader;
  readonly submitter: TxSubmitter;
  readonly keys: OperatorKeys;
  /** This node's operator while its registration is active, else undefined. */
  readonly operator: () => Promise<Address | undefined>;
  readonly store: ObjectStore;
  readonly events: ScopedEvents;
  readonly log: Logger;
}

/**
 * The provider's side of a deal: each block, find the deals the chain gave this node (its numbered
 * index), and accept each one whose object it holds — the same CID, size and commitment root — by a
 * transaction its operator signs. A deal whose object it does not hold waits: fetching from the other
 * providers is not built yet, so such a deal is refunded when its acceptance window closes.
 */
export class DealAcceptor {
  private readonly open = new Set<string>();
  private readonly sent = new Map<string, { tx: string; at: number }>();
  private readonly told = new Set<string>();
  private indexRead = 0;
  private indexOf: string | undefined;
  private polling = false;
  private again = false;
  private off: (() => void) | undefined;

  constructor(private readonly options: DealAcceptorOptions) {}

  start(): void {
    this.off = this.options.events.on('chain:block', () => this.poll());
    this.poll();
  }

  stop(): void {
    this.off?.();
  }

  private poll(): void {
    if (this.polling) {
      this.again = true;
      return;
    }
    this.polling = true;
    void this.pass()
      .catch((error: unknown) => this.options.log.error({ err: error }, 'deal acceptor pass failed'))
      .finally(() => {
        this.polling = false;
        if (this.again) {
          this.again = false;
          this.poll();
        }
      });
  }

  private async pass(): Promise<void> {
    const operator = await this.options.operator();
    if (!operator) return;
    const read = (key: string) => this.options.chain.state.get(key);
    if (this.indexOf !== operator) {
      this.indexOf = operator;
      this.indexRead = 0;
      this.open.clear();
    }
    const index = providerDealIndex(operator);
    for (const count = indexCount(read, index); this.indexRead < count; this.indexRead++) this.open.add(decode<string>(read(`${index}/${this.indexRead}`)!));
    const height = this.options.chain.head.height;
    for (const dealId of [...this.open]) {
      const deal = readDeal(read, dealId);
      const mine = deal?.providers.find((r) => r.provider === operator);
      if (!deal || !mine || deal.status !== 'pending' || mine.acceptedAt !== undefined) {
        this.open.delete(dealId);
        this.sent.delete(dealId);
        continue;
      }
      const held = this.options.store.summary(deal.cid);
      if (!held || held.size !== deal.size || held.root !== deal.root) {
        if (!this.told.has(dealId)) {
          this.told.add(dealId);
          const why = held ? 'its size or commitment root differ from the deal\'s' : 'this node does not hold it (fetching from the other providers is not built yet)';
          this.options.log.warn({ deal: dealId, cid: deal.cid }, `not accepting deal ${dealId.slice(0, 10)}… for ${deal.cid}: ${why}`);
        }
        continue;
      }
      const sent = this.sent.get(dealId);
      if (sent && (this.options.submitter.isPending(sent.tx) || height - sent.at < RESEND_AFTER_BLOCKS)) continue;
      const key = this.options.keys.get(operator);
      if (!key) return void this.options.log.error({ operator }, 'this node no longer holds the operator key: cannot accept deals');
      const tx = signTransaction({ chainId: this.options.chain.head.chainId, kind: 'omp.acceptDeal', nonce: this.options.submitter.nextNonce(operator), payload: { dealId } }, key);
      try {
        this.options.submitter.submit(tx);
        this.sent.set(dealId, { tx: tx.hash, at: height });
        this.options.log.info({ deal: dealId, cid: deal.cid }, `accepting deal ${dealId.slice(0, 10)}… for ${deal.cid}`);
      } catch (error) {
        this.options.log.warn({ deal: dealId, err: error }, 'omp.acceptDeal not admitted; retrying on a later block');
      }
    }
  }
}

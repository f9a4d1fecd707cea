import type { Address } from '../../sdk/address.js';
import { decode } from '../../sdk/encoding.js';
import {
  RESEND_AFTER_BLOCKS,
  type ProviderWorkOptions,
  resendDue,
  SerialPasses,
  submitAsOperator,
} from '../providers/provider-work.js';
import { indexCount } from '../../chain/state/indexed.js';
import type { ObjectStore } from '../../objects/store.js';
import { open } from 'node:fs/promises';
import { fromHex, toHex } from '../../sdk/bytes.js';
import { PIECE_BYTES, proveSegment, SEGMENTS_PER_PIECE, verifySegment } from '../../objects/commitment.js';
import { providerDealIndex, readDeal, type DealRecord, type DealReplica } from '../omp/deals/state.js';

declare module '../../kernel/plugin.js' {
  interface SvcEvents {
    /** A challenge of this node's on a deal passed (its proof was mined) or failed (a fault). */
    'omp-storage:proof': { dealId: string; result: 'passed' | 'failed' };
  }
}

export interface DealKeeperOptions extends ProviderWorkOptions {
  readonly store: ObjectStore;
  /** Fetches a deal's object from its other providers; true once this node holds it. */
  readonly replicate: (deal: DealRecord, self: Address) => Promise<boolean>;
}

/**
 * The provider's side of a deal: each block, find the deals the chain gave this node (its numbered
 * index); accept each one whose object it holds — the same CID, size and commitment root — and answer
 * each challenge of an active deal with proofs built from its copy (one 1 MiB piece read per segment),
 * by transactions its operator signs. A proof is checked here before it leaves: a damaged copy sends
 * nothing (the challenge becomes a fault) and says so in the log. The object of a deal it does not
 * hold is fetched from the deal's other providers first, and checked, before it accepts.
 */
export class DealKeeper {
  private readonly open = new Set<string>();
  private readonly sent = new Map<string, { tx: string; at: number }>();
  private readonly told = new Set<string>();
  private readonly proofsSent = new Map<string, { tx: string; at: number; period: number }>();
  /** Deals whose object is being fetched, and the height of the last failed try. */
  private readonly fetching = new Set<string>();
  private readonly outcomes = new Map<string, { lastProof: number | undefined; faults: number }>();
  private readonly fetchFailedAt = new Map<string, number>();
  private indexRead = 0;
  private indexOf: string | undefined;
  private readonly passes: SerialPasses;
  private off: (() => void) | undefined;

  constructor(private readonly options: DealKeeperOptions) {
    this.passes = new SerialPasses(() => this.pass(), options.log, 'deal keeper pass');
  }

  start(): void {
    const offBlock = this.options.events.on('chain:block', () => this.passes.run());
    // The chain went back (dev mode's revert): the deals are read from the chain again, as after a restart.
    const reread = (): void => {
      this.indexOf = undefined;
      for (const known of [this.open, this.told]) known.clear();
      for (const known of [this.sent, this.proofsSent, this.outcomes, this.fetchFailedAt]) known.clear();
      this.passes.run();
    };
    const offRewound = this.options.events.on('chain:rewound', reread);
    // Begun at a snapshot (state sync): the same, from the restored state.
    const offRestored = this.options.events.on('chain:restored', reread);
    this.off = () => {
      offBlock();
      offRewound();
      offRestored();
    };
    this.passes.run();
  }

  stop(): void {
    this.passes.stop();
    this.off?.();
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
    for (const count = indexCount(read, index); this.indexRead < count; this.indexRead++)
      this.open.add(decode<string>(read(`${index}/${this.indexRead}`)!));
    const height = this.options.chain.head.height;
    for (const dealId of [...this.open]) {
      const deal = readDeal(read, dealId);
      const mine = deal?.providers.find((r) => r.provider === operator);
      if (mine) this.count(dealId, mine);
      if (
        !deal ||
        !mine ||
        mine.faulty ||
        deal.status === 'closed' ||
        deal.status === 'failed' ||
        (deal.status === 'pending' && mine.acceptedAt !== undefined)
      ) {
        if (deal?.status !== 'pending') this.forget(dealId);
        continue;
      }
      if (deal.status === 'pending') await this.accept(deal, operator, height);
      else if (!this.options.store.summary(deal.cid)) this.fetch(deal, operator, height);
      else if (mine.challenge) await this.prove(deal, mine.challenge, operator, height);
    }
  }

  /** Proofs of this node's that passed, and challenges it failed, as the chain recorded them (metrics). */
  private count(dealId: string, mine: DealReplica): void {
    const before = this.outcomes.get(dealId) ?? { lastProof: undefined, faults: 0 };
    if (mine.lastProof !== undefined && mine.lastProof !== before.lastProof)
      this.options.events.emit('omp-storage:proof', { dealId, result: 'passed' });
    for (let i = before.faults; i < (mine.faults ?? 0); i++)
      this.options.events.emit('omp-storage:proof', { dealId, result: 'failed' });
    this.outcomes.set(dealId, { lastProof: mine.lastProof, faults: mine.faults ?? 0 });
  }

  private forget(dealId: string): void {
    this.outcomes.delete(dealId);
    this.open.delete(dealId);
    this.sent.delete(dealId);
    this.proofsSent.delete(dealId);
    this.told.delete(dealId);
  }

  /** Whether to send (again): never sent, or sent long enough ago and no longer pending. */
  private due(sent: { tx: string; at: number } | undefined, height: number): boolean {
    return resendDue(this.options.submitter, sent, height);
  }

  private async accept(deal: DealRecord, operator: Address, height: number): Promise<void> {
    const held = this.options.store.summary(deal.cid);
    if (held && (held.size !== deal.size || held.root !== deal.root)) {
      return this.tell(
        deal.dealId,
        `not accepting deal ${deal.dealId.slice(0, 10)}… for ${deal.cid}: its size or commitment root differ from the deal's`,
      );
    }
    if (!held) return this.fetch(deal, operator, height);
    if (!this.due(this.sent.get(deal.dealId), height)) return;
    const tx = this.send(operator, 'omp.acceptDeal', { dealId: deal.dealId });
    if (tx) {
      this.sent.set(deal.dealId, { tx, at: height });
      this.options.log.info(
        { deal: deal.dealId, cid: deal.cid },
        `accepting deal ${deal.dealId.slice(0, 10)}… for ${deal.cid}`,
      );
    }
  }

  /** Fetches the object in the background (one try at a time per deal, again a few blocks after a failure); the next pass accepts. */
  private fetch(deal: DealRecord, operator: Address, height: number): void {
    const failedAt = this.fetchFailedAt.get(deal.dealId);
    if (this.fetching.has(deal.dealId) || (failedAt !== undefined && height - failedAt < RESEND_AFTER_BLOCKS)) return;
    this.fetching.add(deal.dealId);
    void this.options
      .replicate(deal, operator)
      .then((held) => {
        if (held) this.passes.run();
        else this.fetchFailedAt.set(deal.dealId, this.options.chain.head.height);
      })
      .finally(() => this.fetching.delete(deal.dealId));
  }

  private async prove(
    deal: DealRecord,
    challenge: { period: number; indexes: number[] },
    operator: Address,
    height: number,
  ): Promise<void> {
    const sent = this.proofsSent.get(deal.dealId);
    if (sent?.period === challenge.period && !this.due(sent, height)) return;
    const record = await this.options.store.record(deal.cid);
    if (!record)
      return this.tell(
        `${deal.dealId}/${challenge.period}`,
        `cannot answer the challenge of deal ${deal.dealId.slice(0, 10)}…: this node no longer holds ${deal.cid}`,
      );
    const pieceRoots = Array.from({ length: record.pieceRoots.length / 32 }, (_, i) =>
      Buffer.from(record.pieceRoots.subarray(i * 32, (i + 1) * 32)),
    );
    const root = fromHex(deal.root);
    const proofs = [];
    const file = await open(this.options.store.path(deal.cid), 'r');
    try {
      for (const index of challenge.indexes) {
        const piece = Buffer.alloc(PIECE_BYTES);
        const { bytesRead } = await file.read(
          piece,
          0,
          PIECE_BYTES,
          Math.floor(index / SEGMENTS_PER_PIECE) * PIECE_BYTES,
        );
        const proof = proveSegment(index, piece.subarray(0, bytesRead), pieceRoots);
        if (!verifySegment(root, deal.size, proof)) {
          // Useless now: dropped, so reads go to the other providers and the next pass fetches a good copy from them.
          await file.close();
          await this.options.store.remove(deal.cid);
          return this.tell(
            `${deal.dealId}/${challenge.period}`,
            `the copy of ${deal.cid} is damaged: segment ${index} no longer matches its commitment; dropped it, and the challenge of deal ${deal.dealId.slice(0, 10)}… goes unanswered (a fault) unless a good copy comes from the other providers in time`,
            'error',
          );
        }
        proofs.push({ index, segment: toHex(proof.segment), path: proof.path.map((hash) => toHex(hash)) });
      }
    } finally {
      await file.close().catch(() => undefined);
    }
    const tx = this.send(operator, 'omp.proveStorage', { dealId: deal.dealId, period: challenge.period, proofs });
    if (tx) this.proofsSent.set(deal.dealId, { tx, at: height, period: challenge.period });
  }

  /** Logs a reason once per subject. */
  private tell(subject: string, message: string, level: 'warn' | 'error' = 'warn'): void {
    if (this.told.has(subject)) return;
    this.told.add(subject);
    this.options.log[level]({ subject }, message);
  }

  private send(operator: Address, kind: string, payload: Record<string, unknown>): string | undefined {
    return submitAsOperator(this.options, operator, kind, payload);
  }
}

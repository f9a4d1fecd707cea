import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cidOfBytes } from '../../objects/small-cid.js';
import type { Logger } from '../../kernel/log.js';
import type { Table } from '../../kernel/storage/layout.js';
import { ObjectStore, type ObjectRecord, type ObjectSummary } from '../../objects/store.js';
import type { MediaFormat } from '../../objects/sniff.js';
import type { ProviderService } from '../providers/service.js';
import type { CapabilityExtension } from '../providers/capability.js';
import type { StorageDetailsSchema } from '../omp/provider-kind.js';
import type { DealKeeper } from './deal-keeper.js';
import type { P2pService } from '../../p2p/service.js';
import type { DealRecord } from '../omp/deals/state.js';
import { OBJECT_PROTOCOL, requestObject, serveObject, type ObjectHeader } from './object-protocol.js';
import type { ChainReader } from '../../chain/capabilities.js';
import { objectDeals, readDeal } from '../omp/deals/state.js';
import { timeoutSignal } from '../../kernel/timeout-signal.js';

/** Bytes in a GB of `storage_capacity_gb` (SI: 10^9). */
export const BYTES_PER_GB = 1_000_000_000;

export interface ObjectsOptions {
  readonly dataDir: string;
  readonly table: Table<string, ObjectRecord>;
  readonly maxObjectBytes: number;
  /** How long an object may stay without a pending or active deal naming it (an upload no deal followed, or one whose deals ended). */
  readonly graceSeconds: number;
  readonly log: Logger;
  /** Keeps this node's deals: made with the objects it reads and fetches into. */
  readonly keeper: (objects: StorageObjects) => DealKeeper;
  readonly p2p: P2pService;
  readonly chain: ChainReader;
  /** The libp2p peer id a storage provider registered with. */
  readonly peerOf: (provider: string) => string | undefined;
}

/** How long one fetch of an object from another provider may take (it streams: a slow peer is dropped). */
const FETCH_TIMEOUT_MS = 10 * 60_000;

/** Why this node does not take uploads now, or its formats and capacity when it does. */
export type UploadTerms =
  | { readonly refused: string }
  | { readonly formats: readonly MediaFormat[]; readonly capacityBytes: number };

/**
 * The objects a storage node holds: the store on disk, and what uploads may be (this node's
 * registration gives the formats and the capacity; the config the size limit).
 */
export class StorageObjects implements CapabilityExtension {
  readonly store: ObjectStore;
  private readonly keeper: DealKeeper;
  private readonly stopping = new AbortController();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly service: ProviderService<StorageObjects, typeof StorageDetailsSchema>,
    readonly options: ObjectsOptions,
  ) {
    this.store = new ObjectStore(join(options.dataDir, 'objects'), options.table, options.log);
    this.keeper = options.keeper(this);
  }

  async start(): Promise<void> {
    await this.store.open();
    const { usedBytes, objects } = this.store.usage();
    if (objects > 0) this.options.log.info({ objects, usedBytes }, `holding ${objects} object(s), ${usedBytes} bytes`);
    await this.options.p2p.handleProtocol(
      OBJECT_PROTOCOL,
      (stream) => serveObject(stream, this.store, this.stopping.signal),
      { maxInboundStreams: 8 },
    );
    this.keeper.start();
    this.sweeper = setInterval(
      () => void this.sweep(),
      Math.min(60_000, Math.max(500, this.options.graceSeconds * 500)),
    );
    this.sweeper.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    this.stopping.abort();
    this.keeper.stop();
    await this.store.close();
  }

  /** Drops the objects no pending or active deal names, once they are older than the grace period. */
  async sweep(now = Date.now()): Promise<void> {
    const read = (key: string) => this.options.chain.state.get(key);
    for (const object of this.store.list()) {
      if (now - object.storedAt < this.options.graceSeconds * 1000) continue;
      const dealt = objectDeals(read, object.cid).some((id) => {
        const status = readDeal(read, id)?.status;
        return status === 'pending' || status === 'active';
      });
      if (dealt) continue;
      await this.store.remove(object.cid);
      this.options.log.info(
        { cid: object.cid, size: object.size },
        `dropped ${object.cid}: no pending or active deal names it, ${this.options.graceSeconds} s after it was stored`,
      );
    }
  }

  /** Providers the chain says hold `cid`: of its active deals, accepted and not faulty. */
  holders(cid: string): string[] {
    const read = (key: string) => this.options.chain.state.get(key);
    const holders = new Set<string>();
    for (const id of objectDeals(read, cid)) {
      const deal = readDeal(read, id);
      if (deal?.status === 'active')
        for (const r of deal.providers) if (r.acceptedAt !== undefined && !r.faulty) holders.add(r.provider);
    }
    return [...holders];
  }

  /**
   * The object (or a range of it) from a provider that holds it, for a reader of a node that does
   * not: the first of its holders that answers. Undefined when none does.
   */
  async fromHolders(
    cid: string,
    range: { start: number; end: number } | undefined,
    signal: AbortSignal,
  ): Promise<{ header: Exclude<ObjectHeader, { error: string }>; body: AsyncGenerator<Uint8Array> } | undefined> {
    for await (const { header, body } of this.answers(cid, range, signal)) return { header, body };
    return undefined;
  }

  /** Each other holder of `cid` that serves it, in turn: one that fails or refuses is logged and passed over. */
  private async *answers(
    cid: string,
    range: { start: number; end: number } | undefined,
    signal: AbortSignal,
  ): AsyncGenerator<{
    provider: string;
    header: Exclude<ObjectHeader, { error: string }>;
    body: AsyncGenerator<Uint8Array>;
  }> {
    for (const provider of this.holders(cid)) {
      const peer = this.options.peerOf(provider);
      if (!peer || peer === this.options.p2p.peerId) continue;
      let answer: Awaited<ReturnType<typeof requestObject>>;
      try {
        const stream = await this.options.p2p.openStream(
          peer,
          OBJECT_PROTOCOL,
          AbortSignal.any([signal, this.stopping.signal]),
        );
        answer = await requestObject(stream, { cid, ...(range ?? {}) }, signal);
      } catch (error) {
        this.options.log.debug({ cid, provider, err: error }, 'holder did not serve the object');
        continue;
      }
      const { header, body } = answer;
      if (!('error' in header)) yield { provider, header, body };
    }
  }

  /**
   * A small object's bytes, whole, checked against its CID: this node's copy, else the first holder's
   * that is right (a holder sending other bytes is passed over). Undefined when the object is larger
   * than `maxBytes` or no one serves it right.
   */
  async readVerified(cid: string, maxBytes: number, signal: AbortSignal): Promise<Uint8Array | undefined> {
    const held = this.store.summary(cid);
    if (held && held.size <= maxBytes) {
      const bytes = new Uint8Array(await readFile(this.store.path(cid)));
      if (cidOfBytes(bytes) === cid) return bytes;
    }
    for await (const { provider, header, body } of this.answers(cid, undefined, signal)) {
      if (header.size > maxBytes) {
        await body.return(undefined);
        return undefined;
      }
      try {
        const chunks: Uint8Array[] = [];
        for await (const chunk of body) chunks.push(chunk);
        const bytes = new Uint8Array(Buffer.concat(chunks));
        if (bytes.length === header.size && cidOfBytes(bytes) === cid) return bytes;
        this.options.log.warn({ cid, provider }, `provider ${provider} sent bytes that are not ${cid}`);
      } catch (error) {
        this.options.log.debug({ cid, provider, err: error }, 'holder did not serve the object');
      }
    }
    return undefined;
  }

  /**
   * Fetches a deal's object from the deal's other providers (the uploading one first) over libp2p and
   * stores it through the same one-pass check as an upload, then keeps it only if it is the deal's
   * object: its CID, size and commitment root recomputed here. True when this node now holds it.
   */
  async replicate(deal: DealRecord, self: string): Promise<boolean> {
    const terms = await this.uploadTerms();
    if ('refused' in terms) return false;
    for (const source of deal.providers.filter((r) => r.provider !== self)) {
      const peer = this.options.peerOf(source.provider);
      if (!peer) continue;
      const signal = timeoutSignal(FETCH_TIMEOUT_MS, this.stopping.signal);
      try {
        const stream = await this.options.p2p.openStream(peer, OBJECT_PROTOCOL, signal);
        const { header, body } = await requestObject(stream, { cid: deal.cid }, signal);
        if ('error' in header) {
          this.options.log.debug(
            { deal: deal.dealId, provider: source.provider, error: header.error },
            'provider does not serve the object',
          );
          continue;
        }
        const { summary, created } = await this.store.put(body, {
          maxBytes: deal.size,
          capacityBytes: terms.capacityBytes,
          formats: [deal.format as MediaFormat],
        });
        if (summary.cid === deal.cid && summary.size === deal.size && summary.root === deal.root) {
          this.options.log.info(
            { deal: deal.dealId, cid: deal.cid, from: source.provider, bytes: summary.size },
            `fetched ${deal.cid} from ${source.provider} for deal ${deal.dealId.slice(0, 10)}…`,
          );
          return true;
        }
        this.options.log.warn(
          { deal: deal.dealId, got: summary.cid, want: deal.cid, from: source.provider },
          `${source.provider} sent other bytes than deal ${deal.dealId.slice(0, 10)}… names: not kept`,
        );
        if (created) await this.store.remove(summary.cid);
      } catch (error) {
        this.options.log.warn(
          { deal: deal.dealId, from: source.provider, err: error },
          `could not fetch ${deal.cid} from ${source.provider}: ${(error as Error).message}`,
        );
      }
    }
    return false;
  }

  health(): Record<string, unknown> {
    const { usedBytes, objects } = this.store.usage();
    return { objects: { count: objects, usedBytes } };
  }

  async uploadTerms(): Promise<UploadTerms> {
    if (!this.service.enabled) return { refused: "the storage capability is switched off in this node's config" };
    const { status, registration } = await this.service.status();
    if (status !== 'active' || !registration)
      return {
        refused: `this node is not an active storage provider (${status}): register it with svc_ompRegisterStorageNode first`,
      };
    const { details } = registration;
    return {
      formats: details.formats,
      capacityBytes: Math.floor(Number(details.capacityGb) * BYTES_PER_GB),
    };
  }

  usage(): { usedBytes: number; objects: number } {
    const { usedBytes, objects } = this.store.usage();
    return { usedBytes, objects };
  }

  summary(cid: string): ObjectSummary | undefined {
    return this.store.summary(cid);
  }
}

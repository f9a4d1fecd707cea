import { join } from 'node:path';
import type { Logger } from '../../kernel/log.js';
import type { Table } from '../../kernel/storage/layout.js';
import { ObjectStore, type ObjectRecord, type ObjectSummary } from '../../objects/store.js';
import type { MediaFormat } from '../../objects/sniff.js';
import type { ProviderService } from '../providers/service.js';
import type { CapabilityExtension } from '../providers/capability.js';
import type { StorageDetails } from '../omp/index.js';
import type { DealKeeper } from './deal-keeper.js';

/** Bytes in a GB of `storage_capacity_gb` (SI: 10^9). */
export const BYTES_PER_GB = 1_000_000_000;

export interface ObjectsOptions {
  readonly dataDir: string;
  readonly table: Table<string, ObjectRecord>;
  readonly maxObjectBytes: number;
  readonly log: Logger;
  /** Accepts this node's deals: made with the store it reads. */
  readonly acceptor: (store: ObjectStore) => DealKeeper;
}

/** Why this node does not take uploads now, or its formats and capacity when it does. */
export type UploadTerms = { readonly refused: string } | { readonly formats: readonly MediaFormat[]; readonly capacityBytes: number };

/**
 * The objects a storage node holds: the store on disk, and what uploads may be (this node's
 * registration gives the formats and the capacity; the config the size limit).
 */
export class StorageObjects implements CapabilityExtension {
  readonly store: ObjectStore;
  private readonly acceptor: DealKeeper;

  constructor(
    private readonly service: ProviderService,
    readonly options: ObjectsOptions,
  ) {
    this.store = new ObjectStore(join(options.dataDir, 'objects'), options.table, options.log);
    this.acceptor = options.acceptor(this.store);
  }

  async start(): Promise<void> {
    await this.store.open();
    const { usedBytes, objects } = this.store.usage();
    if (objects > 0) this.options.log.info({ objects, usedBytes }, `holding ${objects} object(s), ${usedBytes} bytes`);
    this.acceptor.start();
  }

  async stop(): Promise<void> {
    this.acceptor.stop();
  }

  health(): Record<string, unknown> {
    const { usedBytes, objects } = this.store.usage();
    return { objects: { count: objects, usedBytes } };
  }

  async uploadTerms(): Promise<UploadTerms> {
    if (!this.service.enabled) return { refused: 'the storage capability is switched off in this node\'s config' };
    const { status, registration } = await this.service.status();
    if (status !== 'active' || !registration) return { refused: `this node is not an active storage provider (${status}): register it with svc_ompRegisterStorageNode first` };
    const details = registration.details as unknown as StorageDetails;
    return { formats: details.formats as MediaFormat[], capacityBytes: Math.floor(Number(details.capacityGb) * BYTES_PER_GB) };
  }

  usage(): { usedBytes: number; objects: number } {
    const { usedBytes, objects } = this.store.usage();
    return { usedBytes, objects };
  }

  summary(cid: string): ObjectSummary | undefined {
    return this.store.summary(cid);
  }
}

import type { ReadState } from '../../../chain/state/indexed.js';
import { ProviderRegistry } from '../../providers/registry-service.js';
import { objectDeals, readDeal } from './state.js';
import type { StorageDetailsSchema } from '../provider-kind.js';

/**
 * What other plugins' chain rules may read of OMP's deals, the `omp-deals` capability: answers from
 * the state they are given (a block's, or the head's for admission), so every node answers alike.
 * OON names a job's code by the CID of a stored object through it, without reading OMP's keys.
 */
export interface OmpDeals {
  /** The active deal that keeps `cid`, with the object's size in bytes; undefined when no deal keeps it now. */
  activeDealOf(read: ReadState, cid: string): { readonly dealId: string; readonly size: number } | undefined;
}

/** The OMP plugin's service: the storage-provider registry, and its deals as other rules may read them. */
export class OmpRegistry extends ProviderRegistry<typeof StorageDetailsSchema> implements OmpDeals {
  /** Started with `--dev`: admits dev mode's deal controls. */
  dev = false;

  activeDealOf(read: ReadState, cid: string): { readonly dealId: string; readonly size: number } | undefined {
    for (const id of objectDeals(read, cid)) {
      const deal = readDeal(read, id);
      if (deal?.status === 'active') return { dealId: deal.dealId, size: deal.size };
    }
    return undefined;
  }
}

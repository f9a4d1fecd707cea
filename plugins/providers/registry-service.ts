import type { Static, TObject } from 'typebox';
import type { ChainReader } from '../../chain/capabilities.js';
import { readProviders, type ProviderKind, type ProviderRecord } from './registry.js';

/** A provider registry as a node reads it: the chain state at the head. */
export class ProviderRegistry<D extends TObject = TObject> {
  constructor(
    readonly kind: ProviderKind<D>,
    readonly chain: ChainReader,
  ) {}

  /** Providers registered on chain and not unbonding, in operator order. */
  active(): ProviderRecord<Static<D>>[] {
    return readProviders((key) => this.chain.state.get(key), this.kind).filter(
      (record) => record.releaseAt === undefined,
    );
  }
}

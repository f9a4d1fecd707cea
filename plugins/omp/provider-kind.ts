import Type from 'typebox';
import { distinctValues } from '../../chain/schemas.js';
import { UNIT } from '../../sdk/amount.js';
import type { DetailsOf, ProviderKind } from '../providers/registry.js';

/** The media formats a storage provider may serve (the chain rules own them; the storage capability uses them). */
export const FORMATS = ['image', 'video', 'document'] as const;
export const Formats = distinctValues(FORMATS, 'media formats');

/** What a storage registration records on chain besides the bond (capacity as decimal text: no floats in consensus). */
export const StorageDetailsSchema = Type.Object(
  { capacityGb: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }), formats: Formats },
  { additionalProperties: false },
);

/** The kind's chain rules take it as a parameter (tests give another plugin name). */
export type StorageKind = ProviderKind<typeof StorageDetailsSchema>;

/** Storage providers bond at least 500 OGT, recorded under the account's `storage` bond. */
export const OMP: StorageKind = {
  plugin: 'omp',
  purpose: 'storage',
  minimumBond: 500n * UNIT,
  details: StorageDetailsSchema,
};

/** What a storage provider declared at registration. */
export type StorageDetails = DetailsOf<typeof OMP>;

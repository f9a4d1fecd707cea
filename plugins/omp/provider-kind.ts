import Type from 'typebox';
import { distinctValues } from '../../chain/schemas.js';
import { UNIT } from '../../sdk/amount.js';
import { providerKind, type DetailsOf } from '../providers/registry.js';

/** The media formats a storage provider may serve (the chain rules own them; the storage capability uses them). */
export const FORMATS = ['image', 'video', 'document'] as const;
export const Formats = distinctValues(FORMATS, 'media formats');

/**
 * Storage providers bond at least 500 OGT, recorded under the account's `storage` bond, and declare
 * their capacity (decimal text: no floats in consensus) and formats.
 */
export const OMP = providerKind({
  plugin: 'omp',
  purpose: 'storage',
  minimumBond: 500n * UNIT,
  details: { capacityGb: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }), formats: Formats },
});

/** The kind's chain rules take it as a parameter (tests give another plugin name). */
export type StorageKind = typeof OMP;
export const StorageDetailsSchema = OMP.details;

/** What a storage provider declared at registration. */
export type StorageDetails = DetailsOf<typeof OMP>;

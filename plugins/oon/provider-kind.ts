import Type from 'typebox';
import { distinctValues } from '../../chain/schemas.js';
import { UNIT } from '../../sdk/amount.js';
import { providerKind, type DetailsOf } from '../providers/registry.js';

/** The runtimes a compute provider may offer (the chain rules own them; the compute capability uses them). */
export const RUNTIMES = ['wasm', 'evm'] as const;
export const Capabilities = distinctValues(RUNTIMES, 'runtimes');

/**
 * Compute providers bond at least 1,000 OGT, recorded under the account's `compute` bond, and declare
 * their runtimes and how many jobs they run at once.
 */
export const OON = providerKind({
  plugin: 'oon',
  purpose: 'compute',
  minimumBond: 1000n * UNIT,
  details: {
    capabilities: Capabilities,
    maxConcurrentJobs: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
    dedicated: Type.Optional(
      Type.Literal(true, {
        description: 'a --role compute node: assigned jobs before providers that lend idle capacity',
      }),
    ),
  },
});

/** The kind's chain rules take it as a parameter (tests give another plugin name). */
export type ComputeKind = typeof OON;
export const ComputeDetailsSchema = OON.details;

/** What a compute provider declared at registration. */
export type ComputeDetails = DetailsOf<typeof OON>;

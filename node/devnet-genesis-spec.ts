import { devnetBaseGenesis, type GenesisSpec } from '../chain/genesis.js';
import { formatAmountShort, UNIT } from '../sdk/amount.js';
import { devnetValidatorPeerId } from '../keys/devnet-identity.js';

/** What the devnet validator bonds as a provider in block 0: each registry's minimum. */
export const DEVNET_PROVIDER_BONDS = { compute: 1_000n * UNIT, storage: 500n * UNIT } as const;
/** Jobs the devnet validator runs at once, and the storage it offers: a laptop's share. */
const DEVNET_MAX_CONCURRENT_JOBS = 4;
const DEVNET_STORAGE_GB = '10';
const DEVNET_CHALLENGE_WINDOW_MS = 500;

/**
 * The built-in devnet's genesis before the chain rules add their entries: the devnet's accounts, and
 * its validator registered as a compute provider (wasm and evm jobs) and a storage provider (every
 * format) with its bonds in place, at the peer id its node runs as — so a contract's jobs run and
 * uploads are taken on a fresh devnet with no setup.
 */
export function devnetGenesisSpec(): GenesisSpec {
  const base = devnetBaseGenesis();
  const operator = base.validator;
  const peerId = devnetValidatorPeerId();
  return {
    ...base,
    accounts: [...base.accounts, { address: operator, omc: 0n, ogt: 0n, bonded: { ...DEVNET_PROVIDER_BONDS } }],
    params: {
      ...base.params,
      // A devnet's jobs settle as fast as its blocks come: a single result is open to challenge for
      // half a second (and a block), not the 3 s a network with outside challengers keeps.
      jobChallengeWindowMs: DEVNET_CHALLENGE_WINDOW_MS,
      providers: {
        compute: [
          {
            operator,
            peerId,
            bond: formatAmountShort(DEVNET_PROVIDER_BONDS.compute),
            details: { capabilities: ['wasm', 'evm'], maxConcurrentJobs: DEVNET_MAX_CONCURRENT_JOBS },
          },
        ],
        storage: [
          {
            operator,
            peerId,
            bond: formatAmountShort(DEVNET_PROVIDER_BONDS.storage),
            details: { capacityGb: DEVNET_STORAGE_GB, formats: ['image', 'video', 'document'] },
          },
        ],
      },
    },
  };
}

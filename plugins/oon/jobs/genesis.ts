import type { GenesisParameters } from '../../../chain/contract.js';
import { jobRetention } from './state.js';

/**
 * A genesis file's `"jobRecordBlocks"`, when it has one, into block 0. Without it the key stays absent
 * and the default applies (so the devnet's genesis, and its hash, are what they were).
 */
export const jobsGenesis = (parameters: GenesisParameters): [string, Uint8Array][] => jobRetention.genesis(parameters);

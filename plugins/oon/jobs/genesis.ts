import { encode } from '../../../sdk/encoding.js';
import { GenesisError } from '../../../chain/genesis.js';
import type { GenesisParameters } from '../../../chain/contract.js';
import { JOB_RECORD_BLOCKS_KEY } from './params.js';

/**
 * A genesis file's `"jobRecordBlocks"`, when it has one, into block 0. Without it the key stays absent
 * and the default applies (so the devnet's genesis, and its hash, are what they were).
 */
export function jobsGenesis({ params }: GenesisParameters): [string, Uint8Array][] {
  const blocks = params.jobRecordBlocks;
  if (blocks === undefined) return [];
  if (!Number.isSafeInteger(blocks) || (blocks as number) < 1) throw new GenesisError('genesis "jobRecordBlocks" must be a positive integer');
  return [[JOB_RECORD_BLOCKS_KEY, encode(blocks)]];
}

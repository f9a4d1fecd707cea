import type { GenesisParameters } from '../../../chain/contract.js';
import { GenesisError } from '../../../chain/genesis.js';
import { encode } from '../../../sdk/encoding.js';
import { CHALLENGE_WINDOW_KEY } from './params.js';
import { jobRetention } from './state.js';

/** The longest challenge window a genesis may set: ten minutes of block time. */
const MAX_CHALLENGE_WINDOW_MS = 600_000;

/**
 * A genesis file's `"jobRecordBlocks"` and `"jobChallengeWindowMs"`, when it has them, into block 0.
 * Without one the key stays absent and the default applies (so a genesis without them keeps its hash).
 */
export const jobsGenesis = (parameters: GenesisParameters): [string, Uint8Array][] => {
  const entries = jobRetention.genesis(parameters);
  const window = parameters.params.jobChallengeWindowMs;
  if (window !== undefined) {
    if (!Number.isSafeInteger(window) || (window as number) < 0 || (window as number) > MAX_CHALLENGE_WINDOW_MS)
      throw new GenesisError(
        `genesis "jobChallengeWindowMs" must be a whole number of ms from 0 to ${MAX_CHALLENGE_WINDOW_MS}`,
      );
    entries.push([CHALLENGE_WINDOW_KEY, encode(window)]);
  }
  return entries;
};

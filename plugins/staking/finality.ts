import { toHex } from '../../sdk/bytes.js';
import { signWith, type KeyPair } from '../../sdk/keys.js';
import type { FinalityRules } from '../../chain/finality.js';
import { commitProblem, voteSignBytes } from '../../consensus/messages.js';
import type { StakingService } from './service.js';

/**
 * The chain's finality rules from the staking state: a certificate is good when precommits of more
 * than 2/3 of the power of the set that governs the block sign it; the only validator of a set of one
 * certifies its block with its own precommit (round 0).
 */
export function stakingFinality(service: StakingService): FinalityRules {
  return {
    commitProblem: (certificate, block, subject, state) => {
      const set = state
        ? service.setFor(state, subject === 'next' ? block.height + 1 : block.height)
        : subject === 'next'
          ? service.currentSet().validators
          : service.headSet();
      return commitProblem(service.chain.head.chainId, set, certificate, block.height, block.hash);
    },
    soleCommit: (block, key: KeyPair) => {
      const operator = service.memberByKey(toHex(key.publicKey))?.operator;
      if (!operator) throw new Error('this key is not in the validator set: it cannot certify a block');
      const vote = {
        type: 'precommit' as const,
        height: block.height,
        round: 0,
        value: block.hash,
        validator: operator,
      };
      return {
        height: block.height,
        round: 0,
        blockHash: block.hash,
        signatures: [
          { validator: operator, signature: toHex(signWith(key, voteSignBytes(service.chain.head.chainId, vote))) },
        ],
      };
    },
  };
}

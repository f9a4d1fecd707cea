import type { CommitCertificate } from '../sdk/block.js';
import type { KeyPair } from '../sdk/keys.js';
import type { Block } from './schemas.js';

/**
 * Which validator set judges a certificate: `next` the block after the head (the set in force after
 * the head), `head` the head itself (the set that governed it, which differs when the head ended an
 * epoch and changed the set).
 */
export type CommitSubject = 'head' | 'next';

/**
 * The rules that say when a block is final. The chain stores each block with the certificate it was
 * committed with, carries it in the next block, and refuses a block whose certificate (or carried
 * parent certificate) these rules reject. The staking rules supply them: the chain itself knows no
 * validator set.
 */
export interface FinalityRules {
  /**
   * What is wrong with `certificate` as the proof that `block` is final, or undefined. `state`: judge
   * `block` (the head) by the set a state other than the chain's names — the state after it, restored
   * from a snapshot before it is the chain's.
   */
  commitProblem(
    certificate: CommitCertificate,
    block: Pick<Block, 'height' | 'hash'>,
    subject: CommitSubject,
    state?: (key: string) => Uint8Array | undefined,
  ): string | undefined;
  /** The certificate of a block made by the only validator in the set, holding `key`: its own precommit. */
  soleCommit(block: Pick<Block, 'height' | 'hash'>, key: KeyPair): CommitCertificate;
}

/** Until validator-set rules are loaded nothing can be proven final, so no block is made or taken. */
export const NO_FINALITY_RULES: FinalityRules = {
  commitProblem: () => 'no validator-set rules are loaded to check commit certificates',
  soleCommit: () => {
    throw new Error('no validator-set rules are loaded to certify a block');
  },
};

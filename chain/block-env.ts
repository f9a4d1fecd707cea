import type { Address } from '../sdk/address.js';
import type { CommitCertificate } from '../sdk/block.js';
import type { BlockEnv, LastCommit } from './contract.js';

/** The parent's certificate as a block's environment names it: its height and who signed it. */
export const lastCommitOf = (certificate: CommitCertificate | null): LastCommit | null =>
  certificate ? { height: certificate.height, signers: certificate.signatures.map((s) => s.validator) } : null;

/** A stored block's environment, as its transactions ran in it (under the rules version of its height). */
export function blockEnvOf(
  block: {
    readonly chainId: string;
    readonly height: number;
    readonly timestamp: number;
    readonly parentHash: string;
    readonly lastCommit: CommitCertificate | null;
    readonly proposer: string;
  },
  rulesVersion: number,
): BlockEnv {
  return {
    chainId: block.chainId,
    height: block.height,
    timestamp: block.timestamp,
    parentHash: block.parentHash,
    lastCommit: lastCommitOf(block.lastCommit),
    proposer: block.proposer as Address,
    rulesVersion,
  };
}

/** A context that shows its block's environment as its own fields (what `TxContext` and `BlockContext` promise). */
export abstract class InBlock implements BlockEnv {
  constructor(readonly env: BlockEnv) {}

  get chainId(): string {
    return this.env.chainId;
  }
  get height(): number {
    return this.env.height;
  }
  get timestamp(): number {
    return this.env.timestamp;
  }
  get parentHash(): string {
    return this.env.parentHash;
  }
  get lastCommit(): LastCommit | null {
    return this.env.lastCommit;
  }
  get proposer(): Address {
    return this.env.proposer;
  }
  get rulesVersion(): number {
    return this.env.rulesVersion;
  }
}

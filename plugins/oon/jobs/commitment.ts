import { sha256 } from '@noble/hashes/sha2.js';
import { toHex } from '../../../sdk/bytes.js';
import { encode } from '../../../sdk/encoding.js';

/** What a provider reports of a run: equal on every honest node. */
export interface ReportedResult {
  /** sha256 of the output bytes, 0x hex. */
  readonly outputHash: string;
  /** `exit:<code>`, `out_of_gas`, or `trap:<reason>`. */
  readonly exit: string;
  /** Decimal. */
  readonly gasUsed: string;
  readonly outputSize: number;
}

/**
 * The commitment a provider publishes before anyone reveals: it binds the job, the provider's own
 * address and a secret salt to the result, so a provider that copies another's commitment cannot
 * open it (the address inside is not its own), and nobody learns a result before every replica
 * has committed to one.
 */
export function resultCommitment(jobId: string, provider: string, result: ReportedResult, salt: string): string {
  return toHex(
    sha256(
      encode([
        'svc-oon-commit',
        jobId,
        provider.toLowerCase(),
        result.outputHash,
        result.exit,
        result.gasUsed,
        result.outputSize,
        salt,
      ]),
    ),
  );
}

export function sameResult(a: ReportedResult, b: ReportedResult): boolean {
  return a.outputHash === b.outputHash && a.exit === b.exit && a.gasUsed === b.gasUsed && a.outputSize === b.outputSize;
}

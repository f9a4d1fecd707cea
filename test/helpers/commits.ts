import { devnetKey, toHex, type CommitCertificate, type KeyPair } from '../../sdk/index.js';
import { signWith } from '../../sdk/keys.js';
import { voteSignBytes } from '../../consensus/messages.js';

/**
 * A commit certificate with one precommit signed by `key` (the devnet validator's by default: its key
 * is public, so a test can certify any block it forges, as an attacker with that key could).
 */
export function signedCommit(
  chainId: string,
  block: { height: number; hash: string },
  key: KeyPair = devnetKey('validator', 0),
  round = 0,
): CommitCertificate {
  const vote = { type: 'precommit' as const, height: block.height, round, value: block.hash, validator: key.address };
  return {
    height: block.height,
    round,
    blockHash: block.hash,
    signatures: [{ validator: key.address, signature: toHex(signWith(key, voteSignBytes(chainId, vote))) }],
  };
}

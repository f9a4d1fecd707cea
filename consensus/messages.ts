import { encode } from '../sdk/encoding.js';
import { fromHex } from '../sdk/bytes.js';
import { verifyEd25519, verifyRemembered } from '../chain/signatures.js';
import type { Proposal } from './tendermint.js';
import type { Vote } from './vote-set.js';
import { isQuorum } from './vote-set.js';
import type { Validator } from './validator-set.js';
import type { CommitCertificate } from '../sdk/block.js';

/**
 * Consensus messages as they travel and are signed. A validator signs with its consensus key the
 * CBOR of a domain tag, the chain id and the message's fields, so a signature is good for one chain
 * and one kind of message only.
 */
export interface SignedVote extends Vote {
  readonly signature: string;
}

export interface SignedProposal extends Proposal {
  readonly signature: string;
}

export type { CommitCertificate };

export const voteSignBytes = (chainId: string, vote: Vote): Uint8Array =>
  encode(['svc/vote/1', chainId, vote.type, vote.height, vote.round, vote.value, vote.validator]);

export const proposalSignBytes = (chainId: string, proposal: Proposal): Uint8Array =>
  encode([
    'svc/proposal/1',
    chainId,
    proposal.height,
    proposal.round,
    proposal.value,
    proposal.validRound,
    proposal.proposer,
  ]);

const keyOf = (set: readonly Validator[], validator: string): string | undefined =>
  set.find((v) => v.operator === validator)?.consensusKey;

/** Whether a vote is signed by its validator's consensus key, the validator in the set. */
export function voteSigned(chainId: string, set: readonly Validator[], vote: SignedVote): boolean {
  const key = keyOf(set, vote.validator);
  return (
    key !== undefined &&
    /^0x[0-9a-f]{128}$/.test(vote.signature) &&
    verifyRemembered(fromHex(vote.signature), voteSignBytes(chainId, vote), fromHex(key))
  );
}

export function proposalSigned(chainId: string, set: readonly Validator[], proposal: SignedProposal): boolean {
  const key = keyOf(set, proposal.proposer);
  return (
    key !== undefined &&
    /^0x[0-9a-f]{128}$/.test(proposal.signature) &&
    verifyEd25519(fromHex(proposal.signature), proposalSignBytes(chainId, proposal), fromHex(key))
  );
}

/** A commit certificate from the precommits a decision was made with. */
export function certificateOf(
  height: number,
  round: number,
  blockHash: string,
  precommits: readonly SignedVote[],
): CommitCertificate {
  return {
    height,
    round,
    blockHash,
    signatures: precommits.map((v) => ({ validator: v.validator, signature: v.signature })),
  };
}

/**
 * What is wrong with a commit certificate for a block under a validator set, or undefined: each
 * signature a precommit for that block at that height and round by a member of the set, each member
 * once, and together more than 2/3 of the set's power.
 */
export function commitProblem(
  chainId: string,
  set: readonly Validator[],
  certificate: CommitCertificate,
  height: number,
  blockHash: string,
): string | undefined {
  if (certificate.height !== height || certificate.blockHash !== blockHash)
    return `the certificate is for block ${certificate.height} (${certificate.blockHash}), not ${height} (${blockHash})`;
  const total = set.reduce((sum, v) => sum + v.power, 0n);
  const seen = new Set<string>();
  let power = 0n;
  for (const { validator, signature } of certificate.signatures) {
    const member = set.find((v) => v.operator === validator);
    if (!member) return `${validator} is not in the validator set`;
    if (seen.has(validator)) return `${validator} signs twice`;
    seen.add(validator);
    const vote: SignedVote = {
      type: 'precommit',
      height,
      round: certificate.round,
      value: blockHash,
      validator,
      signature,
    };
    if (!voteSigned(chainId, set, vote)) return `${validator}'s precommit signature does not verify`;
    power += member.power;
  }
  if (!isQuorum(power, total)) return `precommits of ${power} of ${total} power: more than 2/3 are needed`;
  return undefined;
}

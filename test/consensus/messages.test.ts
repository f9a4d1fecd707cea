import { describe, expect, it } from 'vitest';
import { generateKeyPair, sign, toHex, type KeyPair } from '../../sdk/index.js';
import {
  certificateOf,
  commitProblem,
  proposalSignBytes,
  proposalSigned,
  voteSignBytes,
  voteSigned,
  type SignedVote,
} from '../../consensus/messages.js';
import type { Validator } from '../../consensus/validator-set.js';

const keys: KeyPair[] = [generateKeyPair(), generateKeyPair(), generateKeyPair(), generateKeyPair()];
const set: Validator[] = keys.map((key, i) => ({
  operator: key.address,
  consensusKey: toHex(key.publicKey),
  power: BigInt(15 + i * 4),
}));
const CHAIN = 'svc-devnet';
const BLOCK = `0x${'ab'.repeat(32)}`;

const precommit = (key: KeyPair, value: string | null = BLOCK, chainId = CHAIN): SignedVote => {
  const vote = { type: 'precommit' as const, height: 7, round: 1, value, validator: key.address };
  return { ...vote, signature: toHex(sign(voteSignBytes(chainId, vote), key.secretKey)) };
};

describe('consensus messages and commit certificates', () => {
  it('verifies votes and proposals by the consensus key of a member, for one chain and one message', () => {
    const vote = precommit(keys[0]!);
    expect(voteSigned(CHAIN, set, vote)).toBe(true);
    expect(voteSigned('another-chain', set, vote)).toBe(false);
    expect(voteSigned(CHAIN, set, { ...vote, value: null })).toBe(false);
    expect(voteSigned(CHAIN, set, { ...vote, type: 'prevote' })).toBe(false);
    const stranger = generateKeyPair();
    expect(voteSigned(CHAIN, set, precommit(stranger))).toBe(false);
    const proposal = { height: 7, round: 1, value: BLOCK, validRound: -1, proposer: keys[1]!.address };
    const signed = { ...proposal, signature: toHex(sign(proposalSignBytes(CHAIN, proposal), keys[1]!.secretKey)) };
    expect(proposalSigned(CHAIN, set, signed)).toBe(true);
    expect(proposalSigned(CHAIN, set, { ...signed, validRound: 0 })).toBe(false);
  });

  it('accepts a certificate of more than 2/3 of the power and says what is wrong with any other', () => {
    // Powers 15, 19, 23, 27 (84): 19 + 23 + 27 = 69 > 56; 15 + 19 + 23 = 57 > 56; 15 + 19 + 27 = 61; 15 + 27 = 42 is not.
    const good = certificateOf(7, 1, BLOCK, [precommit(keys[1]!), precommit(keys[2]!), precommit(keys[3]!)]);
    expect(commitProblem(CHAIN, set, good, 7, BLOCK)).toBeUndefined();
    expect(
      commitProblem(CHAIN, set, certificateOf(7, 1, BLOCK, [precommit(keys[0]!), precommit(keys[3]!)]), 7, BLOCK),
    ).toMatch(/precommits of 42 of 84 power/);
    expect(commitProblem(CHAIN, set, good, 8, BLOCK)).toMatch(/the certificate is for block 7/);
    const twice = certificateOf(7, 1, BLOCK, [precommit(keys[1]!), precommit(keys[1]!), precommit(keys[3]!)]);
    expect(commitProblem(CHAIN, set, twice, 7, BLOCK)).toMatch(/signs twice/);
    const forged = {
      ...good,
      signatures: good.signatures.map((s, i) =>
        i === 0 ? { ...s, signature: toHex(sign(new Uint8Array(3), keys[1]!.secretKey)) } : s,
      ),
    };
    expect(commitProblem(CHAIN, set, forged, 7, BLOCK)).toMatch(/signature does not verify/);
    const outsider = generateKeyPair();
    expect(
      commitProblem(
        CHAIN,
        set,
        certificateOf(7, 1, BLOCK, [precommit(outsider), precommit(keys[2]!), precommit(keys[3]!)]),
        7,
        BLOCK,
      ),
    ).toMatch(/not in the validator set/);
    // Nil precommits are no commit.
    expect(
      commitProblem(
        CHAIN,
        set,
        certificateOf(7, 1, BLOCK, [precommit(keys[1]!, null), precommit(keys[2]!, null), precommit(keys[3]!, null)]),
        7,
        BLOCK,
      ),
    ).toMatch(/does not verify/);
  });
});

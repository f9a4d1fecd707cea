import { describe, expect, it } from 'vitest';
import { keccak256, parseTransaction, serializeTransaction, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { decodeVerified, decodeStored } from '../../chain/decode-verified.js';
import {
  ETHEREUM_KIND,
  ethereumTransactionOf,
  parseEthereumTransaction,
  transactionCommon,
  type EthereumPayload,
} from '../../chain/ethereum-envelope.js';
import { nativeRecovery, recoverPublicKey } from '../../chain/secp256k1-recover.js';
import { rawOf } from '../../chain/raw-transactions.js';
import { fromHex } from '../../sdk/bytes.js';
import { TEST_KEY_0, TEST_ADDRESS_0 } from '../helpers/foundry.js';

const context = { chainId: 'svc-devnet-1', evmChainId: 0x737663 };
const account = privateKeyToAccount(TEST_KEY_0);
const tx = {
  chainId: context.evmChainId,
  type: 'eip1559' as const,
  nonce: 7,
  to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as Hex,
  value: 5n,
  gas: 21_000n,
  maxFeePerGas: 3n,
  maxPriorityFeePerGas: 1n,
};

describe('the Ethereum envelope', () => {
  it('decodes to an evm.ethereum transaction: Keccak hash, recovered Keccak-derived sender, the nonce, the bytes as they came', async () => {
    const raw = await account.signTransaction(tx);
    const result = decodeVerified(fromHex(raw), context);
    if (!('tx' in result)) throw new Error(JSON.stringify(result));
    expect(result.tx).toMatchObject({
      kind: ETHEREUM_KIND,
      chainId: 'svc-devnet-1',
      nonce: 7,
      hash: keccak256(raw),
      from: `svc1${TEST_ADDRESS_0.slice(2).toLowerCase()}`,
    });
    expect(result.tx.payload).toMatchObject({
      type: 2,
      value: '5',
      gasLimit: '21000',
      maxFeePerGas: '3',
      maxPriorityFeePerGas: '1',
      to: tx.to.toLowerCase(),
    });
    expect(Buffer.from(rawOf(result.tx)).toString('hex')).toBe(raw.slice(2));
    expect(decodeStored(fromHex(raw), context).hash).toBe(result.tx.hash);
  });

  it('keeps the object it parsed with the payload, for the same rules only: admission and execution parse the bytes once', async () => {
    const raw = await account.signTransaction(tx);
    const result = decodeVerified(fromHex(raw), context);
    if (!('tx' in result)) throw new Error(JSON.stringify(result));
    const payload = result.tx.payload as EthereumPayload;
    const parsed = ethereumTransactionOf(payload, context.evmChainId);
    expect(Buffer.from(parsed.serialize()).toString('hex')).toBe(raw.slice(2));
    expect(ethereumTransactionOf(payload, context.evmChainId)).toBe(parsed);
    // Other rules: parsed again, with them.
    const prague = ethereumTransactionOf(payload, context.evmChainId, 'prague');
    expect(prague).not.toBe(parsed);
    expect(prague.common).toBe(transactionCommon(context.evmChainId, 'prague'));
    // A payload of the same fields not decoded here (one that came from a worker): parsed once, then kept.
    const copy = { ...payload };
    const fromCopy = ethereumTransactionOf(copy, context.evmChainId);
    expect(fromCopy).not.toBe(parsed);
    expect(ethereumTransactionOf(copy, context.evmChainId)).toBe(fromCopy);
  });

  it('refuses another chain id, a legacy transaction without EIP-155, a high-s signature, blob and set-code types, and a network without an EVM', async () => {
    expect(decodeVerified(fromHex(await account.signTransaction({ ...tx, chainId: 1 })), context)).toHaveProperty(
      'wrongChain',
    );
    expect(
      decodeVerified(
        fromHex(
          await account.signTransaction({ to: tx.to, value: 1n, gas: 21_000n, gasPrice: 3n, nonce: 0, type: 'legacy' }),
        ),
        context,
      ),
    ).toMatchObject({ format: expect.stringMatching(/EIP-155/) });
    const signed = parseTransaction(await account.signTransaction(tx));
    const highS = `0x${(secp256k1.Point.CURVE().n - BigInt(signed.s!)).toString(16).padStart(64, '0')}` as Hex;
    expect(
      decodeVerified(
        fromHex(serializeTransaction(tx, { r: signed.r!, s: highS, yParity: signed.yParity === 0 ? 1 : 0 })),
        context,
      ),
    ).toHaveProperty('badSignature', true);
    expect(decodeVerified(fromHex('0x03c0'), context)).toMatchObject({
      format: expect.stringMatching(/type 3 is not supported/),
    });
    expect(decodeVerified(fromHex('0x04c0'), context)).toMatchObject({
      format: expect.stringMatching(/type 4 is not supported/),
    });
    expect(decodeVerified(fromHex(await account.signTransaction(tx)), { chainId: 'other' })).toMatchObject({
      format: expect.stringMatching(/runs no EVM/),
    });
  });

  it('recovers the signer of replay-protected legacy, EIP-2930 and EIP-1559 transactions, natively as in JavaScript', async () => {
    expect(nativeRecovery).toBe(true);
    for (let i = 0; i < 8; i++) {
      const signer = privateKeyToAccount(generatePrivateKey());
      for (const raw of [
        await signer.signTransaction({
          to: tx.to,
          value: 1n,
          gas: 21_000n,
          gasPrice: 3n,
          nonce: i,
          chainId: context.evmChainId,
          type: 'legacy',
        }),
        await signer.signTransaction({
          to: tx.to,
          value: 1n,
          gas: 21_000n,
          gasPrice: 3n,
          nonce: i,
          chainId: context.evmChainId,
          type: 'eip2930',
          accessList: [],
        }),
        await signer.signTransaction({ ...tx, nonce: i }),
      ]) {
        const result = decodeVerified(fromHex(raw), context);
        if (!('tx' in result)) throw new Error(JSON.stringify(result));
        expect(result.tx.from).toBe(`svc1${signer.address.slice(2).toLowerCase()}`);
        const parsed = parseEthereumTransaction(fromHex(raw), context.evmChainId);
        expect(result.tx.publicKey).toBe(`0x${Buffer.from(parsed.getSenderPublicKey()).toString('hex')}`);
      }
    }
  });

  it('refuses a recovery id that is neither 0 nor 1', () => {
    expect(recoverPublicKey(new Uint8Array(32).fill(1), 1n, 1n, 2, () => new Uint8Array(64))).toBeUndefined();
  });
});

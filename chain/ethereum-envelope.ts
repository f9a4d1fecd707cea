import { createCustomCommon, Hardfork, Mainnet, type Common, type ParamsDict } from '@ethereumjs/common';
import { Capability, createTxFromRLP, paramsTx, TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { addressOfBytes, toEthAddress, type Address } from '../sdk/address.js';
import { concatBytes, equalBytes, toHex } from '../sdk/bytes.js';
import { nativeKeccak256 } from './native-keccak.js';
import { recoverPublicKey } from './secp256k1-recover.js';
import type { Payload, SignedTransaction } from '../sdk/transaction.js';

/**
 * The second envelope: Ethereum transactions (legacy with EIP-155, EIP-2930, EIP-1559), signed with
 * secp256k1 for the network's EVM chain id, as `eth_sendRawTransaction` and wallets send them. They
 * travel, are stored and are hashed as their own bytes (RLP; the hash is Keccak-256 of them), and
 * become a transaction of kind `evm.ethereum` whose sender is the Keccak-derived address: one
 * account space and one nonce with the native envelope.
 */
export const ETHEREUM_KIND = 'evm.ethereum';

/**
 * The one hardfork the chain's EVM runs at: Osaka, what current compilers (solc 0.8.31 and later,
 * Foundry) target by default, so code compiled as usual runs as it is.
 */
export const EVM_HARDFORK = Hardfork.Osaka;

/** What decoding needs of the network: its chain id, and its EVM chain id when it runs the EVM. */
export interface EnvelopeContext {
  readonly chainId: string;
  readonly evmChainId?: number;
  /** The EVM's hardfork: the chain's own (EVM_HARDFORK) but in a conformance run at another fork's vectors. */
  readonly hardfork?: Hardfork;
}

/** What the native envelope starts with (a CBOR array of two); every Ethereum envelope starts otherwise. */
const CBOR_PAIR = 0x82;

export function isEthereumEnvelope(raw: Uint8Array): boolean {
  return raw.length > 0 && raw[0] !== CBOR_PAIR;
}

const commons = new Map<string, Common>();

/** The EVM's rules for a chain id (cached: building one costs a millisecond). */
export function evmCommon(evmChainId: number, hardfork: Hardfork = EVM_HARDFORK): Common {
  const key = `${evmChainId}:${hardfork}`;
  let common = commons.get(key);
  if (!common) {
    common = createCustomCommon({ chainId: evmChainId, name: `svc-${evmChainId}` }, Mainnet, { hardfork });
    commons.set(key, common);
  }
  return common;
}

const txCommons = new Map<string, Common>();

/**
 * `common` with `params` merged, made its own copy: ethereumjs objects (a transaction, a block
 * header) copy the Common they are given and merge their parameters into the copy, rebuilding its
 * parameter cache every time. For objects that only read their Common, one such instance serves all.
 */
export function sharedCommon(common: Common, params: ParamsDict): Common {
  common.updateParams(params);
  return Object.assign(common, { copy: () => common, updateParams: () => common });
}

/**
 * The rules transactions are built with: one shared instance per chain id. Each transaction object
 * would otherwise copy its Common and rebuild its parameter cache (a JSON copy of every EIP's
 * parameters): a tenth of the cost of a token transfer or an eth_call. A transaction only reads its
 * Common, so this one has every transaction parameter from the start and its copies are itself.
 * The VM runs on `evmCommon`'s, never on this one.
 */
export function transactionCommon(evmChainId: number, hardfork: Hardfork = EVM_HARDFORK): Common {
  const key = `${evmChainId}:${hardfork}`;
  let common = txCommons.get(key);
  if (!common) {
    common = sharedCommon(
      createCustomCommon({ chainId: evmChainId, name: `svc-${evmChainId}` }, Mainnet, { hardfork }),
      paramsTx,
    );
    // A transaction's hash and the message its signature covers, in native code where it loads (in
    // JavaScript they were a tenth of decoding one).
    if (nativeKeccak256) common.customCrypto.keccak256 = nativeKeccak256;
    txCommons.set(key, common);
  }
  return common;
}

export class EnvelopeError extends Error {
  override name = 'EnvelopeError';
  constructor(
    /** How the refusal reads to Ethereum tools: `invalid_signature`, `wrong_chain_id` or anything else malformed. */
    readonly kind: 'invalid_transaction' | 'invalid_signature' | 'wrong_chain_id',
    message: string,
  ) {
    super(message);
  }
}

/** The payload of an `evm.ethereum` transaction: what the mempool and block views read, and the bytes themselves. */
export interface EthereumPayload extends Payload {
  readonly type: number;
  readonly to: string | null;
  readonly value: string;
  readonly gasLimit: string;
  /** EIP-1559 fee cap; a legacy or EIP-2930 transaction's gas price. */
  readonly maxFeePerGas: string;
  readonly maxPriorityFeePerGas: string;
  readonly rlp: Uint8Array;
}

/** Half the secp256k1 group order: EIP-2's bound on a signature's s. */
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

const SUPPORTED = new Set<number>([
  TransactionType.Legacy,
  TransactionType.AccessListEIP2930,
  TransactionType.FeeMarketEIP1559,
]);

/**
 * The ethereumjs object of each payload, for the rules it was parsed with: the one
 * `decodeEthereumEnvelope` made on this thread, or the one `ethereumTransactionOf` parsed. Admission,
 * execution, receipts and views of the node that admitted a transaction take it instead of parsing
 * the bytes again (a payload that came from a decoding worker is parsed here once).
 */
const parsedPayloads = new WeakMap<EthereumPayload, TypedTransaction>();

/** The payload's transaction under this chain id and hardfork, parsed at most once per payload object. */
export function ethereumTransactionOf(
  payload: EthereumPayload,
  evmChainId: number,
  hardfork: Hardfork = EVM_HARDFORK,
): TypedTransaction {
  const known = parsedPayloads.get(payload);
  if (known && known.common === transactionCommon(evmChainId, hardfork)) return known;
  const tx = parseEthereumTransaction(payload.rlp, evmChainId, hardfork);
  parsedPayloads.set(payload, tx);
  return tx;
}

/**
 * Parses an Ethereum transaction without checking its signature (the bytes of a stored one were
 * checked when it was admitted): the ethereumjs object, for execution and views.
 */
export function parseEthereumTransaction(
  raw: Uint8Array,
  evmChainId: number,
  hardfork: Hardfork = EVM_HARDFORK,
): TypedTransaction {
  try {
    return createTxFromRLP(raw, { common: transactionCommon(evmChainId, hardfork), freeze: false });
  } catch (error) {
    const message = (error as Error).message
      .split('\n')[0]!
      .replace(/ \(tx type=.*$/, '')
      .slice(0, 200);
    if (/chain ?id/i.test(message))
      throw new EnvelopeError('wrong_chain_id', `invalid chain id: this network's EVM chain id is ${evmChainId}`);
    // Refused as the transaction is built: a high-s signature (EIP-2), init code over EIP-3860's limit, gas over EIP-7825's cap.
    if (/signature|s-value/i.test(message)) throw new EnvelopeError('invalid_signature', `invalid sender: ${message}`);
    if (/initcode/i.test(message))
      throw new EnvelopeError('invalid_transaction', `max initcode size exceeded: ${message}`);
    if (/gas ?limit/i.test(message))
      throw new EnvelopeError('invalid_transaction', `gas limit too high: ${message} (EIP-7825)`);
    throw new EnvelopeError('invalid_transaction', `not an Ethereum transaction: ${message}`);
  }
}

/**
 * Decodes an Ethereum envelope and recovers its sender (the signature check: ecrecover), refusing
 * what the network does not take: another chain id, a legacy transaction without EIP-155 replay
 * protection, a high-s signature (EIP-2), blob and set-code transactions, bytes that are not the
 * transaction's canonical encoding.
 */
export function decodeEthereumEnvelope(raw: Uint8Array, context: EnvelopeContext): SignedTransaction {
  const evmChainId = context.evmChainId;
  if (evmChainId === undefined)
    throw new EnvelopeError('invalid_transaction', 'this network runs no EVM: Ethereum transactions are not accepted');
  const first = raw[0]!;
  if (first === TransactionType.BlobEIP4844 || first === TransactionType.EOACodeEIP7702) {
    throw new EnvelopeError(
      'invalid_transaction',
      `transaction type ${first} is not supported (this network takes legacy, EIP-2930 and EIP-1559 transactions)`,
    );
  }
  const tx = parseEthereumTransaction(raw, evmChainId, context.hardfork);
  if (!SUPPORTED.has(tx.type))
    throw new EnvelopeError('invalid_transaction', `transaction type ${tx.type} is not supported`);
  if (tx.type === TransactionType.Legacy && !tx.supports(Capability.EIP155ReplayProtection)) {
    throw new EnvelopeError(
      'invalid_transaction',
      'only replay-protected (EIP-155) transactions are accepted: sign a legacy transaction with the chain id',
    );
  }
  if (!tx.isSigned()) throw new EnvelopeError('invalid_signature', 'the transaction is not signed');
  // EIP-2, for every type: ethereumjs refuses a high s as it builds a typed transaction but not a legacy one.
  if ((tx.s ?? 0n) > SECP256K1_HALF_N)
    throw new EnvelopeError(
      'invalid_signature',
      "invalid sender: the signature's s is in the upper half of the curve order (EIP-2 allows only s <= n/2)",
    );
  if (!equalBytes(tx.serialize(), raw))
    throw new EnvelopeError('invalid_transaction', 'the bytes are not the canonical encoding of the transaction');
  const keccak = tx.common.customCrypto.keccak256 ?? keccak_256;
  // Its hash is of these bytes (they are its encoding): not of a second encoding of it.
  const hash = keccak(raw);
  // Accounts keep nonces to 2^64 − 1 (state edits, contracts' creates), but the transaction pool counts a
  // sender's nonces as safe integers: an account reaches 2^53 only by a dev-mode state edit.
  if (tx.nonce > BigInt(Number.MAX_SAFE_INTEGER))
    throw new EnvelopeError(
      'invalid_transaction',
      `nonce ${tx.nonce} is above 2^53 − 1: this node takes transactions with nonces up to 2^53 − 1`,
    );
  let publicKey: Uint8Array | undefined;
  try {
    // High-s (EIP-2) signatures were refused when the transaction was built; an r or s out of range,
    // or one that recovers no key, is refused here.
    publicKey = recoverPublicKey(tx.getHashedMessageToSign(), tx.r ?? 0n, tx.s ?? 0n, recoveryId(tx, evmChainId), () =>
      tx.getSenderPublicKey(),
    );
  } catch (error) {
    throw new EnvelopeError(
      'invalid_signature',
      `invalid sender: ${(error as Error).message.split('\n')[0]!.slice(0, 200)}`,
    );
  }
  if (!publicKey) throw new EnvelopeError('invalid_signature', 'invalid sender: the signature recovers no public key');
  const fees =
    'maxFeePerGas' in tx
      ? { maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas }
      : { maxFeePerGas: tx.gasPrice, maxPriorityFeePerGas: tx.gasPrice };
  const payload: EthereumPayload = {
    type: tx.type,
    to: tx.to ? toEthAddress(`svc1${toHex(tx.to.bytes).slice(2)}`) : null,
    value: tx.value.toString(),
    gasLimit: tx.gasLimit.toString(),
    maxFeePerGas: fees.maxFeePerGas.toString(),
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
    rlp: raw,
  };
  parsedPayloads.set(payload, tx);
  const v = tx.v ?? 0n;
  return {
    chainId: context.chainId,
    kind: ETHEREUM_KIND,
    publicKey: toHex(publicKey),
    nonce: Number(tx.nonce),
    payload,
    from: ethereumAddressOf(publicKey, keccak),
    signature: toHex(
      concatBytes(
        bigintBytes(tx.r ?? 0n),
        bigintBytes(tx.s ?? 0n),
        bigintBytes(v, Math.max(1, Math.ceil(v.toString(16).length / 2))),
      ),
    ),
    hash: toHex(hash),
  };
}

/**
 * The account of a secp256k1 public key (64 bytes), as Ethereum derives it: the last 20 bytes of its
 * Keccak-256 — here with the transaction's Keccak (native where it loads), where the SDK's
 * `addressFromEthPublicKey` hashes in JavaScript.
 */
function ethereumAddressOf(publicKey: Uint8Array, keccak: (bytes: Uint8Array) => Uint8Array): Address {
  return addressOfBytes(keccak(publicKey).subarray(12));
}

/** The recovery id a signature's v carries: yParity, or for an EIP-155 legacy transaction v - 35 - 2 × chain id. */
function recoveryId(tx: TypedTransaction, evmChainId: number): number {
  const v = tx.v ?? 0n;
  return Number(tx.type === TransactionType.Legacy ? v - 35n - 2n * BigInt(evmChainId) : v);
}

function bigintBytes(value: bigint, width = 32): Uint8Array {
  const hex = value.toString(16).padStart(width * 2, '0');
  return Buffer.from(hex.length > width * 2 ? hex.slice(-width * 2) : hex, 'hex');
}

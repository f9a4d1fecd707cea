import { Hardfork } from '@ethereumjs/common';
import { NEWEST_RULES_VERSION } from '../../chain/rules-version.js';
import { createLegacyTx, createLegacyTxFromRLP } from '@ethereumjs/tx';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { accountKey, encodeAccount } from '../../chain/state/accounts.js';
import { BLOCK_GAS_LIMIT_KEY } from '../../chain/executor.js';
import type { BlockEnv } from '../../chain/contract.js';
import { transactionCommon } from '../../chain/ethereum-envelope.js';
import { codeKey, contractKey, encodeContract, storageKey } from '../../plugins/evm/state.js';
import type { Address } from '../../sdk/address.js';
import { fromHex, toHex } from '../../sdk/bytes.js';
import { encode } from '../../sdk/encoding.js';
import { CONFORMANCE_CHAIN_ID, NodePath, type NodePaths } from './node-path.js';
import type { Log } from '../../chain/receipts.js';
import { ethereumStateRoot, logsHash } from './world-state-trie.js';
import type { VectorFile } from './vectors.js';
import { addressOfHex } from '../../sdk/address.js';

/** The fork whose expectations are checked, and what the EVM runs at for them. */
export const STATE_FORK = 'Cancun';
export const STATE_HARDFORK = Hardfork.Cancun;
/** The chain id the vectors' typed transactions are signed for. */
export const VECTOR_CHAIN_ID = 1;

type Hex = string;
interface PreAccount {
  readonly balance: Hex;
  readonly code: Hex;
  readonly nonce: Hex;
  readonly storage: Record<Hex, Hex>;
}
interface Env {
  readonly currentBaseFee?: Hex;
  readonly currentCoinbase: Hex;
  readonly currentGasLimit: Hex;
  readonly currentNumber: Hex;
  readonly currentRandom?: Hex;
  readonly currentTimestamp: Hex;
}
interface Expectation {
  readonly hash: Hex;
  readonly logs: Hex;
  readonly indexes: { readonly data: number; readonly gas: number; readonly value: number };
  readonly expectException?: string;
  readonly txbytes: Hex;
}
interface StateTest {
  readonly env: Env;
  readonly pre: Record<Hex, PreAccount>;
  readonly transaction: { readonly secretKey: Hex };
  readonly post: Record<string, Expectation[]>;
}

/** One case: a state test's transaction at one choice of data, gas and value, and what Cancun expects of it. */
export interface StateCase {
  /** `<folder>/<file>:<test>:d<i>g<j>v<k>`, stable across runs: what the list of known failures names. */
  readonly id: string;
  readonly folder: string;
  readonly test: StateTest;
  readonly expected: Expectation;
}

/** Every case of the files with a Cancun expectation. */
export function stateCases(files: readonly VectorFile[]): StateCase[] {
  const cases: StateCase[] = [];
  for (const { path, json } of files) {
    const relative = path.replace(/^GeneralStateTests\//, '').replace(/\.json$/, '');
    const folder = relative.slice(0, relative.lastIndexOf('/'));
    for (const [name, value] of Object.entries(json)) {
      const test = value as StateTest;
      for (const expected of test.post?.[STATE_FORK] ?? []) {
        const { data, gas, value: v } = expected.indexes;
        cases.push({ id: `${relative}:${name}:d${data}g${gas}v${v}`, folder, test, expected });
      }
    }
  }
  return cases;
}

/** How a case ended: passed, failed with a reason, or (blob transactions) refused or accepted. */
export type CaseOutcome = { readonly id: string; readonly folder: string } & (
  | { readonly status: 'passed' | 'blob_refused' }
  | { readonly status: 'failed' | 'blob_accepted'; readonly reason: string }
);

const BLOB_TYPE = 0x03;
const bigint = (hex: Hex | undefined): bigint => (hex === undefined || hex === '0x' ? 0n : BigInt(hex));
const strip = (bytes: Uint8Array): Uint8Array => {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  return bytes.subarray(i);
};
const svc = (hex: Hex): Address => addressOfHex(hex);
const pad64 = (hex: Hex): string => hex.slice(2).toLowerCase().padStart(64, '0');

/** The vector's `pre` as the chain stores accounts, code and storage. */
export function seedState(pre: Record<Hex, PreAccount>, blockGasLimit: bigint): Map<string, Uint8Array> {
  const state = new Map<string, Uint8Array>([[BLOCK_GAS_LIMIT_KEY, encode(blockGasLimit)]]);
  for (const [address, account] of Object.entries(pre)) {
    const hex40 = address.slice(2).toLowerCase();
    state.set(
      accountKey(svc(address)),
      encodeAccount({ omc: bigint(account.balance), ogt: 0n, nonce: bigint(account.nonce), bonded: {} }),
    );
    const code = fromHex(account.code);
    const slots = Object.entries(account.storage).filter(([, value]) => bigint(value) !== 0n);
    if (code.length === 0 && slots.length === 0) continue;
    const codeHash = keccak_256(code);
    if (code.length > 0) state.set(codeKey(toHex(codeHash).slice(2)), code);
    state.set(
      contractKey(hex40),
      encodeContract({
        codeHash,
        creator: svc(address),
        createdAt: 0,
        ...(slots.length > 0 ? { storage: true as const } : {}),
      }),
    );
    for (const [slot, value] of slots)
      state.set(storageKey(hex40, pad64(slot)), Uint8Array.from(strip(fromHex(`0x${pad64(value)}`))));
  }
  return state;
}

/**
 * The bytes the node is given. A legacy transaction of the vectors has no replay protection, which
 * the chain refuses by design; it is signed again with EIP-155 for the vectors' chain id, by the
 * same key (same sender, nonce, gas, fees, recipient, value and data: the same execution). Typed
 * transactions are the vector's own bytes. Bytes that do not parse are given as they are.
 */
export function transactionBytes(testCase: StateCase): Uint8Array {
  const raw = fromHex(testCase.expected.txbytes);
  if (raw[0]! < 0xc0) return raw;
  const common = transactionCommon(VECTOR_CHAIN_ID, STATE_HARDFORK);
  let legacy;
  try {
    legacy = createLegacyTxFromRLP(raw, { common });
  } catch {
    return raw;
  }
  const { nonce, gasPrice, gasLimit, to, value, data } = legacy;
  return createLegacyTx({ nonce, gasPrice, gasLimit, to, value, data }, { common })
    .sign(fromHex(testCase.test.transaction.secretKey))
    .serialize();
}

/**
 * Runs one case through the node's path: decoding and admission as `eth_sendRawTransaction` does
 * them, then a block of that one transaction as a producer executes it over the world state seeded
 * from `pre`, with the block's base fee, coinbase, number, time and randomness from `env`. Passes
 * when Ethereum's state root of what the path leaves and the logs' hash are the vector's, or when
 * the vector expects an exception and the path refuses the transaction.
 */
export async function runStateCase(testCase: StateCase, paths: NodePaths): Promise<CaseOutcome> {
  const { env, pre } = testCase.test;
  const expected = testCase.expected;
  const base = { id: testCase.id, folder: testCase.folder };
  const raw = transactionBytes(testCase);
  const blockGasLimit = bigint(env.currentGasLimit);
  const path = await paths.get({ evmChainId: VECTOR_CHAIN_ID, baseFee: bigint(env.currentBaseFee), blockGasLimit });
  const seeded = seedState(pre, blockGasLimit);
  const state = { get: (key: string) => seeded.get(key) };
  const refusal = await refusedBy(raw, path, state, env);
  if (raw[0] === BLOB_TYPE)
    return refusal.refused
      ? { ...base, status: 'blob_refused' }
      : { ...base, status: 'blob_accepted', reason: 'a blob transaction was executed' };
  if (expected.expectException)
    return refusal.refused
      ? { ...base, status: 'passed' }
      : { ...base, status: 'failed', reason: `accepted a transaction Ethereum refuses (${expected.expectException})` };
  if (refusal.refused) return { ...base, status: 'failed', reason: `refused: ${refusal.reason}` };
  const after = new Map(seeded);
  for (const [key, value] of refusal.changes) {
    if (value === undefined) after.delete(key);
    else after.set(key, value);
  }
  const logs = logsHash(refusal.logs);
  if (logs !== expected.logs)
    return { ...base, status: 'failed', reason: `logs hash ${logs}, expected ${expected.logs}` };
  const root = await ethereumStateRoot(after);
  if (root !== expected.hash)
    return { ...base, status: 'failed', reason: `state root ${root}, expected ${expected.hash}` };
  return { ...base, status: 'passed' };
}

type PathResult =
  | { readonly refused: true; readonly reason: string }
  | {
      readonly refused: false;
      readonly changes: ReadonlyMap<string, Uint8Array | undefined>;
      readonly logs: readonly Log[];
    };

async function refusedBy(
  raw: Uint8Array,
  path: NodePath,
  state: { get(key: string): Uint8Array | undefined },
  env: Env,
): Promise<PathResult> {
  const decoded = path.decode(raw);
  if (!('tx' in decoded)) return { refused: true, reason: NodePath.refusal(decoded)! };
  try {
    path.admit(decoded.tx, state);
  } catch (error) {
    const data = (error as { data?: unknown }).data;
    return { refused: true, reason: `admission: ${(error as Error).message}${data ? ` ${JSON.stringify(data)}` : ''}` };
  }
  const blockEnv: BlockEnv = {
    chainId: CONFORMANCE_CHAIN_ID,
    height: Number(bigint(env.currentNumber)),
    timestamp: Number(bigint(env.currentTimestamp)) * 1000,
    // The executor hands the parent's hash to the EVM as PREVRANDAO (the chain has no other randomness): the vector's randomness goes there.
    parentHash: env.currentRandom ?? toHex(new Uint8Array(32)),
    lastCommit: null,
    proposer: svc(env.currentCoinbase),
    rulesVersion: NEWEST_RULES_VERSION,
  };
  const result = await path.execute([decoded.tx], blockEnv, state);
  if (result.rejected.length > 0) return { refused: true, reason: `block: ${result.rejected[0]!.message}` };
  const receipt = result.receipts[0]!;
  // A transaction the EVM could not run at all is in the block with a failed receipt and no gas (only its nonce moved).
  if (receipt.status === 'failed' && receipt.gasUsed === undefined)
    return { refused: true, reason: `execution: ${receipt.error?.name}: ${receipt.error?.reason}` };
  return { refused: false, changes: result.overlay.changes, logs: receipt.logs ?? [] };
}

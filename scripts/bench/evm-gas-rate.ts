// The node's EVM's gas per second at its slowest: contracts that spend a transaction's whole gas on
// one kind of work each (a jump loop, KECCAK256 over memory, cold SLOADs, cold account reads, new
// storage slots, CALLs that create accounts, and the precompiles ECRECOVER, MODEXP, BLAKE2F and the
// BN254 pairing), run through the node's own runner and state manager. What a block filled with the
// slowest of them costs sets the devnet's block gas limit: it must execute within a third of the
// block time. Prints a table and the block gas limit that follows (npm run build, then
// node dist/scripts/bench/evm-gas-rate.js [--gas N] [--runs N]).
import { NEWEST_RULES_VERSION } from '../../chain/rules-version.js';
import { parseArgs } from 'node:util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { EVM_HARDFORK } from '../../chain/ethereum-envelope.js';
import { accountKey, encodeAccount } from '../../chain/state/accounts.js';
import { codeKey, contractKey, encodeContract } from '../../plugins/evm/state.js';
import { DEVNET_BASE_FEE, DEVNET_BLOCK_GAS_LIMIT, DEVNET_EVM_CHAIN_ID } from '../../plugins/evm/params.js';
import { NodePath } from '../conformance/node-path.js';
import { fromHex, toHex } from '../../sdk/bytes.js';
import type { Address } from '../../sdk/address.js';

const { values } = parseArgs({
  options: {
    gas: { type: 'string', default: '16777216' },
    runs: { type: 'string', default: '3' },
    'block-time': { type: 'string', default: '3000' },
  },
});
const GAS = BigInt(values.gas);
const RUNS = Number(values.runs);
const BLOCK_TIME_MS = Number(values['block-time']);

const word = (value: bigint | number): string => BigInt(value).toString(16).padStart(64, '0');

/** A contract that copies its calldata to memory once, then STATICCALLs precompile `address` with it until its gas runs out. */
const callPrecompile = (address: number): string =>
  `0x3660006000375b600060003660006060${address.toString(16).padStart(2, '0')}5afa50600656`.replace('6060', '60');

function ecrecoverInput(): string {
  const key = secp256k1.utils.randomSecretKey();
  const hash = keccak_256(new TextEncoder().encode('svc-node gas rate'));
  const signature = secp256k1.sign(hash, key, { prehash: false, format: 'recovered' });
  const recovery = signature[0]!;
  return `0x${toHex(hash).slice(2)}${word(27 + recovery)}${toHex(signature.subarray(1, 33)).slice(2)}${toHex(signature.subarray(33, 65)).slice(2)}`;
}

/** MODEXP with base, exponent and modulus of `bytes` bytes each (all bits set: the most work per call). */
const modexpInput = (bytes: number): string => `0x${word(bytes)}${word(bytes)}${word(bytes)}${'ff'.repeat(bytes * 3)}`;

/** BLAKE2F with `rounds` rounds (its gas is one per round). */
const blake2fInput = (rounds: number): string =>
  `0x${rounds.toString(16).padStart(8, '0')}${'11'.repeat(64)}${'22'.repeat(128)}${'00'.repeat(16)}01`;

// The generators of BN254's G1 and G2 (EIP-197's encoding: G2's coordinates imaginary part first).
const G1 = `${word(1)}${word(2)}`;
const G2 = [
  '198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2',
  '1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed',
  '090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b',
  '12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa',
].join('');
const pairingInput = (pairs: number): string => `0x${`${G1}${G2}`.repeat(pairs)}`;

interface Workload {
  readonly name: string;
  readonly code: string;
  readonly input?: string;
}

const WORKLOADS: Workload[] = [
  { name: 'jump loop (JUMPDEST PUSH1 JUMP)', code: '0x5b600056' },
  { name: 'KECCAK256 of 32 bytes', code: '0x5b60206000205060005600' },
  { name: 'KECCAK256 of 8 KiB', code: '0x5b6120006000205060005600' },
  { name: 'cold SLOAD (a new slot each)', code: '0x5b5a54506000560000' },
  { name: 'cold BALANCE (a new account each)', code: '0x5b5a31506000560000' },
  { name: 'SSTORE to a new slot', code: '0x5b5a5a556000560000' },
  { name: 'CALL with value to a new account', code: '0x5b600060006000600060015a5af1506000560000' },
  { name: 'ECRECOVER', code: callPrecompile(1), input: ecrecoverInput() },
  { name: 'MODEXP, 32-byte operands', code: callPrecompile(5), input: modexpInput(32) },
  { name: 'MODEXP, 256-byte operands', code: callPrecompile(5), input: modexpInput(256) },
  { name: 'BLAKE2F, 1,000 rounds a call', code: callPrecompile(9), input: blake2fInput(1_000) },
  { name: 'BN254 pairing, 2 pairs', code: callPrecompile(8), input: pairingInput(2) },
];

const CONTRACT: Address = `svc1${'c0de'.padStart(40, '0')}`;
const CALLER: Address = `svc1${'ca11'.padStart(40, '0')}`;

function stateWith(code: string): Map<string, Uint8Array> {
  const bytes = fromHex(code);
  const codeHash = keccak_256(bytes);
  return new Map<string, Uint8Array>([
    [accountKey(CONTRACT), encodeAccount({ omc: 10n ** 30n, ogt: 0n, nonce: 1n, bonded: {} })],
    [accountKey(CALLER), encodeAccount({ omc: 10n ** 30n, ogt: 0n, nonce: 0n, bonded: {} })],
    [contractKey(CONTRACT.slice(4)), encodeContract({ codeHash, creator: CALLER, createdAt: 0 })],
    [codeKey(toHex(codeHash).slice(2)), bytes],
  ]);
}

const path = await NodePath.create(EVM_HARDFORK, {
  evmChainId: DEVNET_EVM_CHAIN_ID,
  baseFee: DEVNET_BASE_FEE,
  blockGasLimit: BigInt(DEVNET_BLOCK_GAS_LIMIT),
});
const runner = path.rules.runner;
const env = {
  chainId: 'svc-devnet',
  lastCommit: null,
  height: 1,
  timestamp: Date.now(),
  proposer: CALLER,
  parentHash: toHex(new Uint8Array(32)),
  rulesVersion: NEWEST_RULES_VERSION,
};

console.log(`gas per run ${GAS.toLocaleString('en')}, best of ${RUNS} runs each, ${EVM_HARDFORK}`);
console.log('| workload | gas used | ms | Mgas/s |');
console.log('|---|---:|---:|---:|');
const rates: { name: string; rate: number }[] = [];
for (const workload of WORKLOADS) {
  const state = stateWith(workload.code);
  let best = Number.POSITIVE_INFINITY;
  let gasUsed = 0;
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const outcome = await runner.call(
      {
        from: CALLER,
        to: CONTRACT,
        data: fromHex(workload.input ?? '0x'),
        value: 0n,
        gasLimit: GAS,
        maxFeePerGas: 0n,
        maxPriorityFeePerGas: 0n,
      },
      (key) => state.get(key),
      env,
      Number(GAS),
      undefined,
      600_000,
    );
    const ms = performance.now() - started;
    if (outcome.failure?.name !== 'out_of_gas')
      throw new Error(`${workload.name}: ended ${outcome.failure?.name ?? 'successfully'}, not out of gas`);
    gasUsed = outcome.gasUsed;
    best = Math.min(best, ms);
  }
  const rate = gasUsed / 1000 / best;
  rates.push({ name: workload.name, rate });
  console.log(`| ${workload.name} | ${gasUsed.toLocaleString('en')} | ${best.toFixed(0)} | ${rate.toFixed(1)} |`);
}
const slowest = rates.reduce((a, b) => (b.rate < a.rate ? b : a));
const budgetMs = BLOCK_TIME_MS / 3;
const limit = Math.floor((slowest.rate * 1_000_000 * budgetMs) / 1000);
console.log(`slowest: ${slowest.name}, ${slowest.rate.toFixed(1)} Mgas/s`);
console.log(
  `a block of it within a third of ${BLOCK_TIME_MS} ms (${budgetMs.toFixed(0)} ms): at most ${limit.toLocaleString('en')} gas (the devnet's block gas limit: ${DEVNET_BLOCK_GAS_LIMIT.toLocaleString('en')})`,
);

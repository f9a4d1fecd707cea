// The main thread's cost of taking one Ethereum transaction in (an ERC-20 transfer, EIP-1559): the
// envelope decoded and checked (parse, canonical encoding, sender recovered, hash), as the node does
// inline and on its decoding workers. Against another build's dist/ (argument 1), alternating rounds in
// this one process: `node dist/scripts/bench/ethereum-decode.js [<other dist>] [rounds] [transactions]`.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { hexToBytes } from '@ethereumjs/util';
import { transactionCommon, type EnvelopeContext } from '../../chain/ethereum-envelope.js';

const [otherArg, roundsArg, countArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 6);
const count = Number(countArg ?? 4000);
const EVM_CHAIN_ID = 7566947;
const context: EnvelopeContext = { chainId: 'svc-devnet-1', evmChainId: EVM_CHAIN_ID };

type Decode = (raw: Uint8Array, context: EnvelopeContext) => unknown;
const load = async (dist: string): Promise<Decode> =>
  (
    (await import(pathToFileURL(resolve(dist, 'chain/ethereum-envelope.js')).href)) as {
      decodeEthereumEnvelope: Decode;
    }
  ).decodeEthereumEnvelope;

// Anvil's first test key; `transfer(address,uint256)` to a fixed token, as contracts.js sends them.
const key = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const token = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const raws = Array.from({ length: count }, (_, nonce) => {
  const data: `0x${string}` = `0xa9059cbb${'00'.repeat(12)}${(nonce + 1).toString(16).padStart(40, '0')}${'0'.repeat(63)}1`;
  return createFeeMarket1559Tx(
    {
      nonce,
      to: token,
      data,
      gasLimit: 60_000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1n,
      chainId: BigInt(EVM_CHAIN_ID),
    },
    { common: transactionCommon(EVM_CHAIN_ID) },
  )
    .sign(key)
    .serialize();
});

function micros(decode: Decode): number {
  const started = performance.now();
  for (const raw of raws) decode(raw, context);
  return ((performance.now() - started) / raws.length) * 1000;
}

const builds: [string, Decode][] = [['this build', await load(resolve(import.meta.dirname, '../..'))]];
if (otherArg) builds.push([otherArg, await load(otherArg)]);
// Warm both (the optimizing compiler), then alternate which goes first.
for (const [, decode] of builds) micros(decode);
const results = builds.map(([name]) => ({ name, micros: [] as number[] }));
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? builds.map((_, i) => i) : builds.map((_, i) => builds.length - 1 - i);
  for (const i of order) results[i]!.micros.push(Math.round(micros(builds[i]![1]) * 10) / 10);
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
process.stdout.write(
  `${JSON.stringify({ transactions: count, builds: results.map((r) => ({ ...r, median: median(r.micros) })) })}\n`,
);

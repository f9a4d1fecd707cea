import { isIPv4 } from 'node:net';
import { parseAmount } from '../sdk/amount.js';
import { initTestnet, type Testnet } from '../node/testnet-init.js';
import { NETWORK_NAME_PATTERN } from '../node/config-values.js';
import { integerText, optionText, UsageError } from './cli-args.js';

export interface TestnetOptions {
  validators?: unknown;
  followers?: unknown;
  out?: unknown;
  hosts?: unknown;
  network?: unknown;
  chainId?: unknown;
  evmChainId?: unknown;
  stake?: unknown;
  blockTime?: unknown;
  rpcPort?: unknown;
  p2pPort?: unknown;
  fromState?: unknown;
  json?: boolean;
}

/** `svc-node init --validators N --out DIR [...]`: a network's genesis and a data dir and config per node. */
export async function initTestnetCommand(options: TestnetOptions): Promise<void> {
  const out = optionText(options.out, '--out');
  if (out === undefined)
    throw new UsageError('init --validators: needs --out <dir> (where the genesis, data dirs and configs go)');
  const hosts = (optionText(options.hosts, '--hosts') ?? '127.0.0.1').split(',').map((h) => h.trim());
  for (const host of hosts) if (!isIPv4(host)) throw new UsageError(`--hosts: "${host}" is not an IPv4 address`);
  const network = optionText(options.network, '--network') ?? 'devnet';
  if (!new RegExp(NETWORK_NAME_PATTERN).test(network))
    throw new UsageError(`--network: "${network}" is not a network name (a-z, 0-9, -; 32 at most)`);
  const chainId = optionText(options.chainId, '--chain-id');
  if (chainId !== undefined && !/^[a-z0-9-]{1,64}$/.test(chainId))
    throw new UsageError(`--chain-id: "${chainId}" must be 1-64 of [a-z0-9-]`);
  const stakeText = optionText(options.stake, '--stake') ?? '20';
  let stakeOgt: bigint;
  try {
    stakeOgt = parseAmount(stakeText);
  } catch {
    throw new UsageError(`--stake: "${stakeText}" is not an OGT amount`);
  }
  let testnet: Testnet;
  try {
    testnet = await initTestnet({
      out,
      validators: integerText(options.validators, '--validators', 1, 100),
      followers: options.followers === undefined ? 0 : integerText(options.followers, '--followers', 0, 100),
      hosts,
      network,
      ...(chainId !== undefined ? { chainId } : {}),
      // Up to 2^53 - 1: the largest a wallet's JavaScript number keeps exactly.
      ...(options.evmChainId !== undefined
        ? { evmChainId: integerText(options.evmChainId, '--evm-chain-id', 1, Number.MAX_SAFE_INTEGER) }
        : {}),
      stakeOgt,
      ...(options.fromState !== undefined ? { fromState: optionText(options.fromState, '--from-state')! } : {}),
      blockTimeMs:
        options.blockTime === undefined ? 1000 : integerText(options.blockTime, '--block-time', 10, 3_600_000),
      rpcPort: options.rpcPort === undefined ? 8545 : integerText(options.rpcPort, '--rpc-port', 1, 65535),
      p2pPort: options.p2pPort === undefined ? 30333 : integerText(options.p2pPort, '--p2p-port', 1, 65535),
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (options.json) return void process.stdout.write(`${JSON.stringify(testnet, null, 2)}\n`);
  const lines = [
    `genesis    ${testnet.genesis}`,
    `chain id   ${testnet.chainId}`,
    `EVM chain  ${testnet.evmChainId} (eth_chainId ${`0x${testnet.evmChainId.toString(16)}`})`,
    `hash       ${testnet.genesisHash}`,
    '',
  ];
  for (const node of testnet.nodes)
    lines.push(
      `${node.name.padEnd(11)}${node.role.padEnd(10)}${node.rpc.padEnd(24)}svc-node start --config ${node.config}`,
    );
  process.stdout.write(`${lines.join('\n')}\n`);
}

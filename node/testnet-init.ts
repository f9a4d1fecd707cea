import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  devnetBaseGenesis,
  EVM_CHAIN_ID_KEY,
  genesisHash,
  genesisState,
  parseGenesis,
  readGenesisFile,
  withPluginGenesis,
} from '../chain/genesis.js';
import { NEWEST_RULES_VERSION, RULES_VERSION_KEY } from '../chain/rules-version.js';
import { writeStateGenesis } from '../chain/backup/export-state.js';
import { formatAmountShort, UNIT } from '../sdk/amount.js';
import { toHex } from '../sdk/bytes.js';
import { generateKeyPair } from '../sdk/keys.js';
import { loadOrCreateNodeKeys } from '../keys/node-keys.js';
import { CHAIN_RULE_PLUGINS, DEVNET_GENESIS_PLUGINS } from './genesis.js';
import { DEVNET_EVM_CHAIN_ID } from '../plugins/evm/params.js';

/** What `svc-node init --validators N --out DIR` is asked for. */
export interface TestnetPlan {
  readonly out: string;
  readonly validators: number;
  /** Non-validator nodes (role full) besides the validators. */
  readonly followers: number;
  /** Each node's address, in order (validators first): what it binds and announces. One address for all: ports count up from the bases. */
  readonly hosts: readonly string[];
  readonly network: string;
  readonly chainId?: string;
  /** What `eth_chainId` answers and wallets sign for; by default derived from the chain id (evmChainIdOf). */
  readonly evmChainId?: number;
  /** OGT each validator but the genesis validator has bonded in block 0. */
  readonly stakeOgt: bigint;
  readonly blockTimeMs: number;
  readonly rpcPort: number;
  readonly p2pPort: number;
  /**
   * A genesis file of exported state (`svc-node export-state`): the network starts with that state at
   * that height, its validators the new ones (the old ones get their stakes back).
   */
  readonly fromState?: string;
}

export interface TestnetNode {
  readonly name: string;
  readonly role: 'validator' | 'full';
  readonly config: string;
  readonly dataDir: string;
  readonly peerId: string;
  readonly rpc: string;
  readonly p2p: string;
  /** The validator's operator (its consensus key's address); undefined for a follower. */
  readonly operator?: string;
}

export interface Testnet {
  readonly genesis: string;
  readonly genesisHash: string;
  readonly chainId: string;
  readonly evmChainId: number;
  readonly nodes: readonly TestnetNode[];
}

/** What each validator's operator holds besides its stake: fees, and OGT to stake more or pay a bond. */
const VALIDATOR_OMC = 1_000n * UNIT;
const VALIDATOR_OGT = 100n * UNIT;

/**
 * A new network's genesis from an exported state: the exported keys as each chain-rule plugin keeps
 * them for a network with validators of its own, then what this network's genesis adds — its
 * validators' accounts and set, its EVM chain id, the newest rules version — at the export's height.
 * The dev accounts a fresh network gets are not added: the state has its accounts.
 */
async function writeFromState(
  from: string,
  network: string,
  fresh: { accounts: unknown[] } & Record<string, unknown>,
  validators: number,
  out: string,
): Promise<void> {
  const exported = readGenesisFile(from, network);
  if (!exported.state) throw new Error(`--from-state ${from}: holds no "state" (write one with svc-node export-state)`);
  const height = exported.initialHeight ?? 0;
  const state = new Map(exported.state);
  for (const plugin of CHAIN_RULE_PLUGINS) plugin.exportGenesis?.(state, { height, newValidators: true });
  const { accounts, ...head } = fresh;
  const own = genesisState(
    withPluginGenesis(
      parseGenesis({ ...head, accounts: accounts.slice(0, validators) }, network, out),
      DEVNET_GENESIS_PLUGINS,
    ),
  );
  for (const [key, value] of own)
    if (
      value !== undefined &&
      (!state.has(key) || key.startsWith('staking/') || key === EVM_CHAIN_ID_KEY || key === RULES_VERSION_KEY)
    )
      state.set(key, value);
  const { evmChainId: _evm, validators: _set, ...fields } = head;
  await writeStateGenesis(
    out,
    { ...fields, initialHeight: height, exportedFrom: { file: from, height, chainId: exported.chainId } },
    state,
  );
}

/** EIP-155 chain ids below this are taken by public networks and the usual development ones (1337, 31337). */
const LEAST_DERIVED_EVM_CHAIN_ID = 1_000_000;

/**
 * An EVM chain id of a network's own, from its chain id: two networks made by `init` (whose chain ids
 * differ) get different ones, so a wallet never takes one for the other, and none is the devnet's.
 */
export function evmChainIdOf(chainId: string): number {
  const span = 2 ** 31 - LEAST_DERIVED_EVM_CHAIN_ID;
  const derived = LEAST_DERIVED_EVM_CHAIN_ID + (createHash('sha256').update(chainId).digest().readUInt32BE(0) % span);
  return derived === DEVNET_EVM_CHAIN_ID ? derived + 1 : derived;
}

/**
 * Writes a network of `validators` validators and `followers` full nodes under `out`, as other BFT
 * chains' testnet commands do: `genesis.json` (the devnet's accounts, the first validator as the genesis
 * validator and the others in the set from block 1 with their stakes bonded), and per node a data dir
 * with its keys (a validator's consensus key in `validator.key`, mode 0600) and a config file
 * (`<name>.json`) that names the genesis, binds its host and dials every other node.
 */
export async function initTestnet(plan: TestnetPlan): Promise<Testnet> {
  const out = resolve(plan.out);
  if (existsSync(out) && readdirSync(out).length > 0)
    throw new Error(`--out ${plan.out}: not empty (init never overwrites keys)`);
  if (plan.hosts.length !== 1 && plan.hosts.length !== plan.validators + plan.followers)
    throw new Error(`--hosts: give one address, or one per node (${plan.validators + plan.followers})`);
  mkdirSync(out, { recursive: true });
  const count = plan.validators + plan.followers;
  const shared = plan.hosts.length === 1;
  const place = (i: number) => ({
    host: plan.hosts[shared ? 0 : i]!,
    rpcPort: plan.rpcPort + (shared ? i : 0),
    p2pPort: plan.p2pPort + (shared ? i : 0),
  });
  const names = Array.from({ length: count }, (_, i) =>
    i < plan.validators ? `validator${i}` : `follower${i - plan.validators}`,
  );
  const consensusKeys = Array.from({ length: plan.validators }, () => generateKeyPair());
  const peers = await Promise.all(names.map((name) => loadOrCreateNodeKeys(join(out, name))));
  const chainId = plan.chainId ?? `svc-${plan.network}-${randomBytes(3).toString('hex')}`;
  const evmChainId = plan.evmChainId ?? evmChainIdOf(chainId);

  const base = devnetBaseGenesis();
  const [genesisValidator, ...staked] = consensusKeys;
  const stake = formatAmountShort(plan.stakeOgt);
  const genesisFile = {
    chainId,
    rulesVersion: NEWEST_RULES_VERSION,
    timestamp: Date.now(),
    validatorKey: toHex(genesisValidator!.publicKey),
    validator: genesisValidator!.address,
    evmChainId,
    accounts: [
      ...consensusKeys.map((key, i) => ({
        address: key.address,
        omc: formatAmountShort(VALIDATOR_OMC),
        ogt: formatAmountShort(VALIDATOR_OGT),
        ...(i > 0 ? { bonded: { stake } } : {}),
      })),
      ...base.accounts.map((a) => ({
        address: a.address,
        omc: formatAmountShort(a.omc),
        ogt: formatAmountShort(a.ogt),
      })),
    ],
    ...(staked.length > 0
      ? {
          validators: staked.map((key, i) => ({
            operator: key.address,
            consensusKey: toHex(key.publicKey),
            stake,
            moniker: names[i + 1]!,
          })),
        }
      : {}),
  };
  const genesisPath = join(out, 'genesis.json');
  if (plan.fromState) await writeFromState(plan.fromState, plan.network, genesisFile, plan.validators, genesisPath);
  else writeFileSync(genesisPath, `${JSON.stringify(genesisFile, null, 2)}\n`);
  // Read back as every node will, with the chain rules' genesis hooks: a bad plan fails here, not at start.
  const hash = genesisHash(withPluginGenesis(readGenesisFile(genesisPath, plan.network), DEVNET_GENESIS_PLUGINS));

  const p2pAddress = (i: number): string => `/ip4/${place(i).host}/tcp/${place(i).p2pPort}/p2p/${peers[i]!.peerId}`;
  const nodes = names.map((name, i): TestnetNode => {
    const { host, rpcPort, p2pPort } = place(i);
    const dataDir = join(out, name);
    const validator = i < plan.validators;
    const config: Record<string, unknown> = {
      network: plan.network,
      genesis: genesisPath,
      role: validator ? 'validator' : 'full',
      dataDir,
      rpc: { bind: `${host}:${rpcPort}` },
      p2p: {
        host,
        port: p2pPort,
        bootstrapPeers: names
          .map((_, j) => j)
          .filter((j) => j !== i)
          .map(p2pAddress),
      },
      // One node decides the devnet faucet's grants (plugins/faucet/authority.ts): the genesis validator.
      ...(i > 0 && plan.network === 'devnet' ? { faucet: { authority: peers[0]!.peerId } } : {}),
    };
    if (validator) {
      const keyFile = join(dataDir, 'validator.key');
      writeFileSync(keyFile, `${toHex(consensusKeys[i]!.secretKey)}\n`, { mode: 0o600 });
      config.validator = { keyFile, blockTime: plan.blockTimeMs };
    }
    const configPath = join(out, `${name}.json`);
    writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
    return {
      name,
      role: validator ? 'validator' : 'full',
      config: configPath,
      dataDir,
      peerId: peers[i]!.peerId,
      rpc: `http://${host}:${rpcPort}`,
      p2p: p2pAddress(i),
      ...(validator ? { operator: consensusKeys[i]!.address } : {}),
    };
  });
  return { genesis: genesisPath, genesisHash: hash, chainId, evmChainId, nodes };
}

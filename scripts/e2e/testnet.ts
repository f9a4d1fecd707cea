import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mnemonicToAccount, type HDAccount } from 'viem/accounts';
import {
  devnetKey,
  fromHex,
  generateKeyPair,
  keyPairFromSecret,
  rawTransaction,
  RpcError,
  signTransaction,
  toHex,
  transferPayload,
  UNIT,
  type KeyPair,
  type SignedTransaction,
  type SvcClient,
} from '../../sdk/index.js';
import type { Testnet as InitTestnet } from '../../node/testnet-init.js';
import { HostNetwork } from './hosts.js';
import type { History } from './history.js';
import type { Manifest } from './manifest.js';
import { NodeProcess, SVC_NODE, type NodePlacement } from '../node-process.js';

// Nodes load the built plugin, also when the runner itself runs from the TypeScript sources.
const CUT_PLUGIN = fileURLToPath(
  import.meta.url.endsWith('.ts')
    ? new URL('../../dist/scripts/e2e/cut-plugin.js', import.meta.url)
    : new URL('./cut-plugin.js', import.meta.url),
);

/** What each staking validator is funded with from a dev account: its stake and some to spare. */
const STAKER_FUNDING = 30n * UNIT;
/** What each provider's operator is funded with, and bonds (the least each registry takes). */
const PROVIDER_FUNDING = 2_000n * UNIT;
export const COMPUTE_BOND_OGT = 1_000;
export const STORAGE_BOND_OGT = 500;
/** What each workload account starts with. */
export const ACCOUNT_OMC = 1_000n * UNIT;
export const ACCOUNT_OGT = 20n * UNIT;

export interface Follower {
  readonly node: NodeProcess;
  readonly compute: boolean;
  readonly storage: boolean;
  operator: string;
}

/** Polls `probe` until `done` says so, or fails after `timeoutMs` naming `what`. */
export async function until<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (done(value)) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs / 1000} s waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))})`,
      );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The mnemonic whose first ten accounts the devnet's genesis funds (Foundry's and Hardhat's default keys). */
const TEST_MNEMONIC = 'test test test test test test test test test test test junk';

/**
 * The testnet a manifest describes, as processes on loopback: the devnet's genesis validator, the
 * validators that stake by transaction, and the followers; each node with its data dir, config and
 * log under `dir`, and the runner's cut plugin loaded.
 */
export class Testnet {
  readonly validators: NodeProcess[] = [];
  readonly followers: Follower[] = [];
  /** The workload's accounts, funded at the start. */
  readonly accounts: KeyPair[];
  /**
   * The Ethereum identities of the first ten clients: the test mnemonic's accounts, funded by the
   * devnet's genesis; their `contract` operations go half the time as Ethereum transactions.
   */
  readonly ethAccounts: HDAccount[];
  private readonly stakerKeys: KeyPair[];
  /** Every validator's operator key: the devnet's genesis validator's, and each staker's (on hosts: those `svc-node init` made). */
  readonly validatorKeys: KeyPair[] = [];
  /** The test hosts, when the manifest places nodes on hosts. */
  private hostNetwork: HostNetwork | undefined;

  private constructor(
    private readonly manifest: Manifest,
    readonly dir: string,
    private readonly history: History,
    private readonly say: (line: string) => void,
  ) {
    this.accounts = Array.from({ length: manifest.workload.accounts }, () => generateKeyPair());
    this.ethAccounts = Array.from({ length: Math.min(10, manifest.workload.accounts) }, (_, i) =>
      mnemonicToAccount(TEST_MNEMONIC, { addressIndex: i }),
    );
    // On hosts every validator is in the genesis `svc-node init` writes; on loopback they stake by transaction.
    this.stakerKeys = manifest.hosts
      ? []
      : Array.from({ length: manifest.validators.count - 1 }, () => generateKeyPair());
    if (!manifest.hosts) this.validatorKeys.push(devnetKey('validator', 0), ...this.stakerKeys);
  }

  get nodes(): NodeProcess[] {
    return [...this.validators, ...this.followers.map((f) => f.node)];
  }

  node(name: string): NodeProcess {
    const found = this.nodes.find((n) => n.name === name);
    if (!found) throw new Error(`no node ${name}`);
    return found;
  }

  /** Peers a node (re)starts with: every other node's address it has had. */
  bootstrapFor(node: NodeProcess): string[] {
    return this.nodes.filter((n) => n !== node && n.p2p !== '').map((n) => n.p2p);
  }

  static async start(manifest: Manifest, dir: string, history: History, say: (line: string) => void): Promise<Testnet> {
    const net = new Testnet(manifest, dir, history, say);
    try {
      await net.launch();
    } catch (error) {
      // What started must not outlive a start that failed half-way.
      await net.close();
      throw error;
    }
    return net;
  }

  private config(name: string, extra: Record<string, unknown> = {}): string {
    const file = join(this.dir, `${name}.json`);
    const { faucet, ...rest } = extra as { faucet?: Record<string, unknown> };
    // Faucet throttle off: every request of the run comes from one client address. The authority (the
    // genesis validator, on every other node) decides the grants.
    writeFileSync(
      file,
      JSON.stringify(
        {
          plugins: [CUT_PLUGIN],
          faucet: { cooldownSeconds: this.manifest.workload.faucetCooldownSeconds, perIpLimit: 0, ...faucet },
          ...rest,
        },
        null,
        2,
      ),
    );
    return file;
  }

  private process(
    name: string,
    args: string[],
    dataDir = join(this.dir, name),
    placement: NodePlacement = {},
  ): NodeProcess {
    mkdirSync(dataDir, { recursive: true });
    return new NodeProcess({ name, dataDir, args, logFile: join(this.dir, `${name}.log`), placement });
  }

  /** Takes a node's host link down or up (hosts only). */
  setLink(node: NodeProcess, up: boolean): void {
    if (!this.hostNetwork) throw new Error('link: the nodes are not on hosts');
    this.hostNetwork.setLink(this.nodes.indexOf(node), up);
  }

  /** Every host link up again (hosts only; nothing on loopback). */
  restoreLinks(): void {
    for (let i = 0; i < (this.hostNetwork?.count ?? 0); i++) this.hostNetwork!.setLink(i, true);
  }

  private async launch(): Promise<void> {
    if (this.manifest.hosts) return this.launchOnHosts();
    const blockTime = String(this.manifest.blockTime);
    const genesis = this.process('v0', [
      '--role',
      'validator',
      '--block-time',
      blockTime,
      '--config',
      this.config('v0'),
    ]);
    this.validators.push(genesis);
    await genesis.start();
    this.say(`v0 (genesis validator) up: ${genesis.url}`);
    for (const [i, key] of this.stakerKeys.entries()) {
      const keyFile = join(this.dir, `v${i + 1}.key`);
      writeFileSync(keyFile, toHex(key.secretKey), { mode: 0o600 });
      this.validators.push(
        this.process(`v${i + 1}`, [
          '--role',
          'validator',
          '--block-time',
          blockTime,
          '--config',
          this.config(`v${i + 1}`, { validator: { keyFile }, faucet: { authority: genesis.peerId } }),
        ]),
      );
    }
    for (const [i, f] of this.manifest.followers.entries()) {
      const args = [
        '--role',
        f.compute ? 'compute' : 'full',
        '--config',
        this.config(`f${i}`, { faucet: { authority: genesis.peerId } }),
      ];
      if (f.archive) args.push('--receipt-archive', 'true');
      this.followers.push({ node: this.process(`f${i}`, args), compute: f.compute, storage: f.storage, operator: '' });
    }
    await Promise.all(this.nodes.slice(1).map((node) => node.start([genesis.p2p])));
    this.say(`${this.nodes.length} nodes up`);
    const client = genesis.client(30_000);
    for (const follower of this.followers) follower.operator = (await follower.node.client().nodeInfo()).operator;
    await this.fund(client);
    await this.stake(client);
    const genesisOperator = (await client.validators()).validators.find((v) => v.genesis)?.operator;
    if (genesisOperator !== this.validatorKeys[0]!.address)
      throw new Error(
        `the genesis validator's operator is ${genesisOperator}, not the devnet's validator key ${this.validatorKeys[0]!.address}`,
      );
  }

  /**
   * The network as an operator deploys one: `svc-node init` writes the genesis (every validator in
   * the set from block 1) and each node's config for its host's address; each node runs on its own
   * test host. Followers are given the first validator alone to dial: they find the others by peer
   * exchange.
   */
  private async launchOnHosts(): Promise<void> {
    const { followers, blockTime } = this.manifest;
    const validators = this.manifest.validators.count;
    this.hostNetwork = HostNetwork.create(validators + followers.length);
    const hosts = this.hostNetwork;
    const out = join(this.dir, 'net');
    const init = [
      'init',
      '--validators',
      String(validators),
      '--followers',
      String(followers.length),
      '--out',
      out,
      '--hosts',
      hosts.addresses.join(','),
      '--block-time',
      String(blockTime),
      '--stake',
      String(this.manifest.validators.stake),
      '--chain-id',
      'svc-e2e-hosts',
      '--json',
    ];
    const net = JSON.parse(execFileSync(process.execPath, [SVC_NODE, ...init], { encoding: 'utf8' })) as InitTestnet;
    this.say(
      `svc-node init: ${net.nodes.length} nodes on ${hosts.addresses[0]}–${hosts.addresses.at(-1)} (network namespaces ${hosts.namespace(0)}–${hosts.namespace(hosts.count - 1)}), genesis ${net.genesisHash}`,
    );
    for (const [i, node] of net.nodes.entries()) {
      const initConfig = JSON.parse(readFileSync(node.config, 'utf8')) as { validator?: { keyFile: string } };
      const placement = { host: hosts.addresses[i]!, rpcPort: 8545, p2pPort: 30333, wrap: hosts.exec(i) };
      if (i < validators) {
        this.validatorKeys.push(keyPairFromSecret(fromHex(readFileSync(initConfig.validator!.keyFile, 'utf8').trim())));
        this.validators.push(
          this.process(`v${i}`, ['--config', this.config(`v${i}`, initConfig)], node.dataDir, placement),
        );
        continue;
      }
      const f = followers[i - validators]!;
      const args = [
        '--config',
        this.config(`f${i - validators}`, initConfig),
        '--role',
        f.compute ? 'compute' : 'full',
      ];
      if (f.archive) args.push('--receipt-archive', 'true');
      this.followers.push({
        node: this.process(`f${i - validators}`, args, node.dataDir, placement),
        compute: f.compute,
        storage: f.storage,
        operator: '',
      });
    }
    const first = net.nodes[0]!.p2p;
    await Promise.all([...this.validators.map((v) => v.start()), ...this.followers.map((f) => f.node.start([first]))]);
    this.say(`${this.nodes.length} nodes up, each on its own host`);
    const client = this.validators[0]!.client(30_000);
    for (const follower of this.followers) follower.operator = (await follower.node.client().nodeInfo()).operator;
    await this.fund(client);
    const set = await client.validators();
    if (set.validators.length !== validators)
      throw new Error(`the genesis set has ${set.validators.length} validators, not ${validators}`);
  }

  /** Signs and sends a setup transaction to the genesis validator, recording it as any other. */
  private async send(client: SvcClient, tx: SignedTransaction): Promise<void> {
    const entry = this.history.submit({
      operation: 'setup',
      node: 'v0',
      hash: tx.hash,
      from: tx.from,
      nonce: tx.nonce,
    });
    try {
      this.history.acknowledged(entry, await client.sendRawTransaction(rawTransaction(tx)));
    } catch (error) {
      this.history.refused(entry, error instanceof RpcError ? error.message : String(error));
      throw error;
    }
  }

  private async fund(client: SvcClient): Promise<void> {
    const { chainId } = await client.chainInfo();
    const funder = devnetKey('account', 9);
    let nonce = await client.getNonce(funder.address);
    const payments: [string, 'OMC' | 'OGT', bigint][] = [
      ...this.accounts.flatMap((a): [string, 'OMC' | 'OGT', bigint][] => [
        [a.address, 'OMC', ACCOUNT_OMC],
        [a.address, 'OGT', ACCOUNT_OGT],
      ]),
      ...this.stakerKeys.map((k): [string, 'OMC' | 'OGT', bigint] => [k.address, 'OGT', STAKER_FUNDING]),
      ...this.followers
        .filter((f) => f.compute || f.storage)
        .map((f): [string, 'OMC' | 'OGT', bigint] => [f.operator, 'OGT', PROVIDER_FUNDING]),
    ];
    let last = '';
    for (const [to, asset, amount] of payments) {
      const tx = signTransaction(
        { chainId, kind: 'transfer', nonce: nonce++, payload: transferPayload(to, asset, amount) },
        funder,
      );
      await this.send(client, tx);
      last = tx.hash;
    }
    const receipt = await client.waitForTransaction(last, { timeoutMs: 60_000 });
    if (receipt.status !== 'success') throw new Error(`funding failed: ${receipt.error?.reason}`);
    this.say(
      `funded ${this.accounts.length} accounts, ${this.stakerKeys.length} validators, ${this.followers.filter((f) => f.compute || f.storage).length} providers`,
    );
  }

  private async stake(client: SvcClient): Promise<void> {
    if (this.stakerKeys.length === 0) return;
    const { chainId } = await client.chainInfo();
    const stake = BigInt(this.manifest.validators.stake) * UNIT;
    const sent: string[] = [];
    for (const [i, key] of this.stakerKeys.entries()) {
      const tx = signTransaction(
        {
          chainId,
          kind: 'staking.createValidator',
          nonce: 0,
          payload: { consensusKey: toHex(key.publicKey), stake: stake.toString(), moniker: `v${i + 1}` },
        },
        key,
      );
      await this.send(client, tx);
      sent.push(tx.hash);
    }
    for (const hash of sent) {
      const receipt = await client.waitForTransaction(hash, { timeoutMs: 60_000 });
      if (receipt.status !== 'success')
        throw new Error(`staking failed: ${receipt.error?.name}: ${receipt.error?.reason}`);
    }
    const { nextChangeAt } = await client.validators();
    this.say(`${this.stakerKeys.length} validators staked; the set changes at block ${nextChangeAt}`);
    await until(
      () => client.validators(),
      (set) => set.validators.length === this.stakerKeys.length + 1,
      120_000,
      'the staked validators to join the set',
    );
  }

  /** Stops every node (SIGKILL: the run is judged, nothing more is asked of them) and closes their logs. */
  async close(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.close()));
    this.hostNetwork?.remove();
  }
}

import { readFileSync } from 'node:fs';
import wabtFactory from 'wabt';
import {
  dealPayload,
  jobPayload,
  rawTransaction,
  RpcError,
  signTransaction,
  transferPayload,
  UNIT,
  type KeyPair,
  type Payload,
  type SignedTransaction,
} from '../../sdk/index.js';
import { encodeDeployData, encodeFunctionData, keccak256, toHex as toHexBytes, type Abi, type Hex } from 'viem';
import type { HDAccount } from 'viem/accounts';
import { contractAddressOf } from '../../sdk/contracts.js';
import { accountAddress, toEthAddress } from '../../sdk/address.js';
import { compileSolidity, type Artifact } from '../solidity.js';
import type { History, OperationKind, Submission } from './history.js';
import type { Manifest } from './manifest.js';
import type { NodeProcess } from '../node-process.js';
import type { Random } from './random.js';
import { COMPUTE_BOND_OGT, STORAGE_BOND_OGT, type Follower, type Testnet } from './testnet.js';

/** The job every `job` operation submits: stdin to stdout in upper case. */
const JOB_WAT = new URL(
  import.meta.url.endsWith('.ts') ? '../../examples/jobs/upper.wat' : '../../../examples/jobs/upper.wat',
  import.meta.url,
);
const JOB_GAS_LIMIT = 200_000n;
const JOB_GAS_PRICE = 1_000_000_000n;
/** A deal's term: a few proof periods, so deals close within a short run. */
const DEAL_BLOCKS = 20;

/** The example ERC-20 (examples/contracts/Token.sol) the `contract` operations deploy and call. */
const CONTRACTS_DIR = new URL(
  import.meta.url.endsWith('.ts') ? '../../examples/contracts/' : '../../../examples/contracts/',
  import.meta.url,
);
const DEPLOY_GAS_LIMIT = 3_000_000;
const CALL_GAS_LIMIT = 100_000;
const TOKEN = 10n ** 18n;
/** What an Ethereum transaction of the workload offers per gas: above the base fee (1 gwei), a tip of none. */
const ETH_FEES = { maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 0n };

/** The history's names for the geth words an `eth_sendRawTransaction` refusal starts with. */
const ETH_REFUSALS: [RegExp, string][] = [
  [/^nonce too low/, 'nonce_too_low'],
  [/^nonce too high/, 'nonce_gap'],
  [/^replacement transaction underpriced/, 'nonce_conflict'],
  [/^insufficient funds/, 'insufficient_funds'],
  [/^already known/, 'already_known'],
];

/** A token transfer a client sends: who, to whom, which token, how much, and its calldata. */
interface TokenTransfer {
  readonly from: string;
  readonly to: string;
  readonly token: string;
  readonly amount: bigint;
  readonly data: Hex;
}

/** The package's contracts (the precompiles' interfaces and WordCount, which pays for jobs). */
const PACKAGE_CONTRACTS_DIR = new URL(
  import.meta.url.endsWith('.ts') ? '../../contracts/' : '../../../contracts/',
  import.meta.url,
);
/** What a job contract is deployed with: OMC for its jobs' escrows. */
export const JOB_CONTRACT_FUNDS = 10n ** 15n;
const JOB_CALL_GAS_LIMIT = 400_000;

/** Compiles the example token and the package's WordCount with solc-js (a dev dependency, as wabt is). */
export async function contractArtifacts(): Promise<{ token: Artifact; jobContract: Artifact }> {
  const artifacts = await compileSolidity([CONTRACTS_DIR.pathname, PACKAGE_CONTRACTS_DIR.pathname]);
  return { token: artifacts.Token!, jobContract: artifacts.WordCount! };
}

/** Compiles the job's WAT to WASM (wabt, a dev dependency: the runner is a developer's tool). */
export async function jobCode(): Promise<Uint8Array> {
  const wabt = await wabtFactory();
  const parsed = wabt.parseWat('upper.wat', readFileSync(JOB_WAT, 'utf8'), {});
  try {
    return Uint8Array.from(parsed.toBinary({}).buffer);
  } finally {
    parsed.destroy();
  }
}

/** A refusal's error name (`nonce_too_low`), or undefined when the node gave no answer at all. */
function refusalOf(error: unknown): string | undefined {
  // The Ethereum methods carry the name in data.error (their message is the text).
  return error instanceof RpcError && error.code !== -32603 && error.message !== 'bad_response'
    ? typeof error.data?.error === 'string'
      ? error.data.error
      : error.message
    : undefined;
}

const words = ['block', 'chain', 'node', 'peer', 'vote', 'seal', 'job', 'gas', 'deal', 'proof', 'stake', 'epoch'];

export interface WorkloadOptions {
  readonly manifest: Manifest;
  readonly testnet: Testnet;
  readonly history: History;
  readonly random: Random;
  readonly chainId: string;
  readonly code: Uint8Array;
  /** The ERC-20 the `contract` operations deploy. */
  readonly token: Artifact;
  /** The contract some `contract` operations deploy and call to submit jobs through the OON precompile (WordCount). */
  readonly jobContract: Artifact;
  /** The EVM chain id Ethereum transactions are signed for. */
  readonly evmChainId: number;
  /**
   * A test-only fault of the runner itself (never of a node): one transfer is recorded as acknowledged
   * by the node it names, but never sent — as if that node had admitted it and then lost it. The
   * acknowledged-transactions check must then fail.
   */
  readonly dropOneTransfer?: boolean;
}

/**
 * The clients: one per account, each drawing its operations from its own random stream, signing
 * with its own nonces, and sending to nodes drawn at random (a node may be down, paused or cut off:
 * that is what the run is about). Every request and answer goes into the history.
 */
export class Workload {
  private stopped = false;
  private wake = new Set<() => void>();
  private running: Promise<void>[] = [];
  private dropped = false;
  /** The next nonce each client signs with. */
  private readonly nonces = new Map<string, number>();
  /** Where the tokens whose deploys a node acknowledged are (or will be, once mined): calls go to any of them. */
  private readonly tokens: string[] = [];
  /** What each identity holds of each token, as far as the clients know. */
  private readonly holdings = new Map<string, Map<string, bigint>>();
  /** Ethereum identities whose next nonce must be asked of a node before they send again. */
  private readonly ethResync = new Set<string>();
  /** The job contract each identity deployed (acknowledged): the calls that submit jobs go to it. */
  private readonly jobContracts = new Map<string, string>();

  constructor(private readonly options: WorkloadOptions) {}

  start(): void {
    const { manifest, testnet, random } = this.options;
    const meanGapMs = (1000 * testnet.accounts.length) / manifest.workload.perSecond;
    this.running = testnet.accounts.map((account, i) =>
      this.client(account, random.split(), meanGapMs, testnet.ethAccounts[i]),
    );
    // The providers register while the rest goes on (and the perturbations too): until then jobs queue, and deals wait.
    const within = Math.min(10_000, manifest.seconds * 250);
    for (const follower of testnet.followers) {
      if (follower.compute) this.running.push(this.register(follower, 'compute', random.int(0, within)));
      if (follower.storage) this.running.push(this.register(follower, 'storage', random.int(0, within)));
    }
    this.running.push(this.unjail(random.split()));
  }

  /**
   * What each validator's operator does: a validator jailed for downtime (one the perturbations kept
   * down long enough) asks back in with `staking.unjail` once its jail time is over, so a long run
   * keeps all its validators.
   */
  private async unjail(random: Random): Promise<void> {
    const sentAt = new Map<string, number>();
    while (!this.stopped) {
      await this.sleep(2_000);
      const up = this.options.testnet.nodes.filter((n) => n.state === 'up');
      if (up.length === 0 || this.stopped) continue;
      const node = random.pick(up);
      const client = node.client();
      const head = await client.blockNumber().catch(() => undefined);
      if (head === undefined) continue;
      for (const key of this.options.testnet.validatorKeys) {
        const status = await client.stakingStatus(key.address).catch(() => undefined);
        if (
          status?.status !== 'jailed' ||
          status.jailedUntil === null ||
          head < status.jailedUntil ||
          Date.now() - (sentAt.get(key.address) ?? 0) < 10_000
        )
          continue;
        const nonce = await client.getNonce(key.address).catch(() => undefined);
        if (nonce === undefined) continue;
        sentAt.set(key.address, Date.now());
        await this.send('unjail', node, this.sign(key, 'staking.unjail', {}, nonce));
      }
    }
  }

  /**
   * A follower's operator registers as a provider through its own node, which signs with the operator
   * key it holds, the way an operator would: it looks at the registration's status each second while
   * the node answers, and registers (again) while the node says it is unregistered and nothing was
   * sent for 10 s — the node may be down, paused, not synced after a restart, or have lost what it
   * admitted with a kill — until the registration is active.
   */
  private async register(follower: Follower, purpose: 'compute' | 'storage', afterMs: number): Promise<void> {
    await this.sleep(afterMs);
    const { history } = this.options;
    let sentAt = 0;
    while (!this.stopped) {
      const node = follower.node;
      const client = node.client(10_000);
      const status =
        node.state === 'up'
          ? await (purpose === 'compute' ? client.oonNodeStatus() : client.ompStorageStatus()).catch(() => undefined)
          : undefined;
      if (status?.status === 'active') return;
      if (status?.status === 'unregistered' && Date.now() - sentAt > 10_000) {
        sentAt = Date.now();
        const entry = history.submit({ operation: 'registration', node: node.name, from: follower.operator });
        try {
          const registered =
            purpose === 'compute'
              ? await client.oonRegisterNode({
                  operator: follower.operator,
                  capabilities: ['wasm'],
                  bond_ogt: COMPUTE_BOND_OGT,
                  max_concurrent_jobs: 4,
                })
              : await client.ompRegisterStorageNode({
                  operator: follower.operator,
                  storage_capacity_gb: 1,
                  bond_ogt: STORAGE_BOND_OGT,
                  supported_formats: ['image', 'document'],
                });
          history.acknowledged(entry, registered.txHash!);
        } catch (error) {
          const refusal = refusalOf(error);
          if (refusal) history.refused(entry, refusal);
          else history.unanswered(entry, (error as Error).message);
        }
      }
      await this.sleep(1_000);
    }
  }

  /** Ends every client after its current operation. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const wake of this.wake) wake();
    await Promise.all(this.running);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.wake.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wake.add(wake);
    });
  }

  /** A node to send to: one that is up, mostly; sometimes any (a client does not know what is down). */
  private pickNode(random: Random): NodeProcess {
    const nodes = this.options.testnet.nodes;
    const up = nodes.filter((n) => n.state === 'up');
    return up.length > 0 && !random.chance(0.1) ? random.pick(up) : random.pick(nodes);
  }

  private async client(account: KeyPair, random: Random, meanGapMs: number, eth?: HDAccount): Promise<void> {
    this.nonces.set(account.address, 0);
    if (eth) this.nonces.set(accountAddress(eth.address), 0);
    let resync = false;
    while (!this.stopped) {
      await this.sleep(random.exponential(meanGapMs));
      if (this.stopped) return;
      // After an answer it could not read, the client asks a node what its next nonce is.
      if (resync) resync = !(await this.resync(account, random));
      const operation = random.weighted(this.options.manifest.workload.mix);
      const outcome =
        eth && operation === 'contract' && random.chance(0.5)
          ? await this.ethereumContract(eth, random)
          : await this.perform(operation, account, random);
      if (outcome === 'unanswered' || outcome === 'nonce') resync = true;
    }
  }

  private async resync(account: { address: string }, random: Random): Promise<boolean> {
    const up = this.options.testnet.nodes.filter((n) => n.state === 'up');
    if (up.length === 0) return false;
    try {
      this.nonces.set(account.address, await random.pick(up).client().getNonce(account.address));
      return true;
    } catch {
      return false;
    }
  }

  private sign(
    account: KeyPair,
    kind: string,
    payload: Payload,
    nonce = this.nonces.get(account.address)!,
  ): SignedTransaction {
    return signTransaction({ chainId: this.options.chainId, kind, nonce, payload }, account);
  }

  /** A transfer of `amount` OMC from `account` to another of the testnet's accounts. */
  private transferToAnother(account: KeyPair, random: Random, amount: bigint): SignedTransaction {
    const to = random.pick(this.options.testnet.accounts.filter((a) => a !== account)).address;
    return this.sign(account, 'transfer', transferPayload(to, 'OMC', amount));
  }

  /** Sends a signed transaction to a node, records what it answered; the client's nonce moves on when it was admitted. */
  private async send(operation: OperationKind, node: NodeProcess, tx: SignedTransaction): Promise<Submission> {
    const { history } = this.options;
    const entry = history.submit({ operation, node: node.name, hash: tx.hash, from: tx.from, nonce: tx.nonce });
    try {
      history.acknowledged(entry, await node.client().sendRawTransaction(rawTransaction(tx)));
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal === 'already_known') history.acknowledged(entry, tx.hash);
      else if (refusal) history.refused(entry, refusal);
      else history.unanswered(entry, (error as Error).message);
    }
    return entry;
  }

  /** One operation; what the client should make of its answer. */
  private async perform(
    operation: keyof Manifest['workload']['mix'],
    account: KeyPair,
    random: Random,
  ): Promise<'ok' | 'unanswered' | 'nonce'> {
    const { testnet } = this.options;
    const node = this.pickNode(random);
    const nonce = this.nonces.get(account.address)!;
    const advance = (entry: Submission): 'ok' | 'unanswered' | 'nonce' => {
      if (entry.outcome === 'acknowledged') this.nonces.set(account.address, nonce + 1);
      if (entry.outcome === 'unanswered') return 'unanswered';
      return entry.outcome === 'refused' && /^nonce_/.test(entry.error ?? '') ? 'nonce' : 'ok';
    };
    switch (operation) {
      case 'transfer': {
        const to = random.pick(testnet.accounts.filter((a) => a !== account)).address;
        const asset = random.chance(0.8) ? 'OMC' : 'OGT';
        const tx = this.sign(account, 'transfer', transferPayload(to, asset, BigInt(random.int(1, 1000)) * 10n ** 15n));
        if (this.options.dropOneTransfer && !this.dropped) {
          this.dropped = true;
          const entry = this.options.history.submit({
            operation,
            node: node.name,
            hash: tx.hash,
            from: tx.from,
            nonce: tx.nonce,
          });
          this.options.history.acknowledged(entry, tx.hash);
          node.note({ fault: 'dropped a transfer it acknowledged (the runner never sent it)', hash: tx.hash });
          return advance(entry);
        }
        return advance(await this.send(operation, node, tx));
      }
      case 'badNonce': {
        // A nonce already used, or past what the mempool takes ahead: refused, never mined.
        const bad = nonce > 0 && random.chance(0.5) ? random.int(0, nonce - 1) : nonce + 1_000 + random.int(1, 100);
        const tx = this.sign(
          account,
          'transfer',
          transferPayload(random.pick(testnet.accounts).address, 'OMC', UNIT),
          bad,
        );
        await this.send(operation, node, tx);
        return 'ok';
      }
      case 'insufficientFunds': {
        const tx = this.transferToAnother(account, random, 1_000_000_000n * UNIT);
        return advance(await this.send(operation, node, tx));
      }
      case 'faucet': {
        const to = random.pick(testnet.accounts).address;
        const entry = this.options.history.submit({ operation, node: node.name, to });
        try {
          const grant = await node.client().faucetRequest(to);
          this.options.history.acknowledged(entry, grant.txHash);
        } catch (error) {
          const refusal = refusalOf(error);
          if (refusal) this.options.history.refused(entry, refusal);
          else this.options.history.unanswered(entry, (error as Error).message);
        }
        return 'ok';
      }
      case 'duplicate': {
        // The same signed transfer to two nodes at once: mined once.
        const other = this.pickNode(random);
        const tx = this.transferToAnother(account, random, BigInt(random.int(1, 1000)) * 10n ** 15n);
        const entries = await Promise.all([this.send(operation, node, tx), this.send(operation, other, tx)]);
        const acknowledged = entries.find((e) => e.outcome === 'acknowledged');
        return advance(acknowledged ?? entries.find((e) => e.outcome === 'unanswered') ?? entries[0]!);
      }
      case 'job': {
        const input = new TextEncoder().encode(
          Array.from({ length: random.int(1, 12) }, () => random.pick(words)).join(' '),
        );
        const tx = this.sign(
          account,
          'oon.submitJob',
          jobPayload({
            runtime: 'wasm',
            code: this.options.code,
            input,
            gasLimit: JOB_GAS_LIMIT,
            gasPrice: JOB_GAS_PRICE,
          }),
        );
        return advance(await this.send(operation, node, tx));
      }
      case 'deal': {
        const holder = random.pick(testnet.followers.filter((f) => f.storage));
        const text = Array.from({ length: random.int(16, 600) }, () => random.pick(words)).join(' ');
        let object;
        try {
          object = await holder.node
            .client(15_000)
            .uploadObject(new TextEncoder().encode(text), { contentType: 'text/plain' });
        } catch {
          // Its storage node is down or paused: no deal to make this time.
          return 'ok';
        }
        const tx = this.sign(
          account,
          'omp.createDeal',
          dealPayload({
            object,
            provider: holder.operator,
            replicas: 1,
            durationBlocks: DEAL_BLOCKS,
            price: BigInt(random.int(1, 100)) * 10n ** 15n,
          }),
        );
        return advance(await this.send(operation, node, tx));
      }
      case 'contract': {
        // Now and then a contract that pays for jobs: deployed once per identity, then called.
        if (random.chance(0.3)) {
          const contract = this.jobContracts.get(account.address);
          const { abi, bytecode } = this.options.jobContract as unknown as { abi: Abi; bytecode: Hex };
          if (!contract) {
            const entry = await this.send(
              operation,
              node,
              this.sign(account, 'evm.create', {
                code: bytecode,
                value: JOB_CONTRACT_FUNDS.toString(),
                gasLimit: DEPLOY_GAS_LIMIT,
              }),
            );
            if (entry.outcome === 'acknowledged')
              this.jobContracts.set(account.address, contractAddressOf(account.address, nonce));
            return advance(entry);
          }
          const input = toHexBytes(new TextEncoder().encode(random.pick(words)));
          const data = encodeFunctionData({
            abi,
            functionName: 'count',
            args: ['', toHexBytes(this.options.code), input, 1_000_000n, 1n, 1],
          });
          return advance(
            await this.send(
              operation,
              node,
              this.sign(account, 'evm.call', { to: contract, data, value: '0', gasLimit: JOB_CALL_GAS_LIMIT }),
            ),
          );
        }
        if (this.deploys(random, account.address)) {
          const { supply, code } = this.tokenDeploy(random);
          const entry = await this.send(
            operation,
            node,
            this.sign(account, 'evm.create', { code, value: '0', gasLimit: DEPLOY_GAS_LIMIT }),
          );
          if (entry.outcome === 'acknowledged')
            this.deployed(account.address, contractAddressOf(account.address, nonce), supply);
          return advance(entry);
        }
        // Amounts up to what a deployer holds: transfers by accounts without enough revert (and pay their gas).
        const transfer = this.tokenTransfer(random, account.address);
        const entry = await this.send(
          operation,
          node,
          this.sign(account, 'evm.call', {
            to: transfer.token,
            data: transfer.data,
            value: '0',
            gasLimit: CALL_GAS_LIMIT,
          }),
        );
        if (entry.outcome === 'acknowledged') this.transferred(transfer);
        return advance(entry);
      }
    }
  }

  private get tokenArtifact(): { abi: Abi; bytecode: Hex } {
    return this.options.token as unknown as { abi: Abi; bytecode: Hex };
  }

  /** Whether a contract operation deploys a token rather than moving one: the first does, and mostly one by an identity that holds none. */
  private deploys(random: Random, from: string): boolean {
    const holds = [...this.holding(from).values()].some((amount) => amount >= TOKEN);
    return this.tokens.length === 0 || random.chance(holds ? 0.1 : 0.8);
  }

  private tokenDeploy(random: Random): { supply: bigint; code: Hex } {
    const { abi, bytecode } = this.tokenArtifact;
    const supply = BigInt(random.int(100, 1000)) * TOKEN;
    return { supply, code: encodeDeployData({ abi, bytecode, args: [supply] }) };
  }

  /** What each identity holds of each token as far as the clients know (acknowledged, not necessarily mined or successful). */
  private holding(by: string): Map<string, bigint> {
    let held = this.holdings.get(by);
    if (!held) this.holdings.set(by, (held = new Map()));
    return held;
  }

  private deployed(by: string, token: string, supply: bigint): void {
    this.tokens.push(token);
    this.holding(by).set(token, supply);
  }

  private transferred({ from, to, token, amount }: TokenTransfer): void {
    this.holding(from).set(token, (this.holding(from).get(token) ?? 0n) - amount);
    this.holding(to).set(token, (this.holding(to).get(token) ?? 0n) + amount);
  }

  /**
   * A token transfer to another of the workload's identities: mostly of a token the sender holds, of
   * at most what it holds as far as the clients know; sometimes of any token and up to 50 (which
   * reverts when it holds too little, and pays its gas).
   */
  private tokenTransfer(random: Random, from: string): TokenTransfer {
    const { testnet } = this.options;
    const identities = [
      ...testnet.accounts.map((a) => a.address),
      ...testnet.ethAccounts.map((a) => accountAddress(a.address)),
    ].filter((a) => a !== from);
    const held = [...this.holding(from)].filter(([, amount]) => amount >= TOKEN);
    const [token, max] =
      held.length > 0 && random.chance(0.8) ? random.pick(held) : [random.pick(this.tokens), 50n * TOKEN];
    const amount = BigInt(random.int(1, Number(max / TOKEN))) * TOKEN;
    const to = random.pick(identities);
    return {
      from,
      to,
      token,
      amount,
      data: encodeFunctionData({
        abi: this.tokenArtifact.abi,
        functionName: 'transfer',
        args: [toEthAddress(to), amount],
      }),
    };
  }

  /** A `contract` operation as an Ethereum transaction (EIP-1559, signed with the identity's secp256k1 key) through `eth_sendRawTransaction`. */
  private async ethereumContract(eth: HDAccount, random: Random): Promise<'ok'> {
    const from = accountAddress(eth.address);
    if (this.ethResync.has(from)) {
      if (!(await this.resync({ address: from }, random))) return 'ok';
      this.ethResync.delete(from);
    }
    const nonce = this.nonces.get(from)!;
    const base = { chainId: this.options.evmChainId, nonce, ...ETH_FEES };
    const deploy = this.deploys(random, from);
    const transfer = deploy ? undefined : this.tokenTransfer(random, from);
    const creation = deploy ? this.tokenDeploy(random) : undefined;
    const raw = transfer
      ? await eth.signTransaction({
          ...base,
          gas: BigInt(CALL_GAS_LIMIT),
          to: toEthAddress(transfer.token),
          data: transfer.data,
        })
      : await eth.signTransaction({ ...base, gas: BigInt(DEPLOY_GAS_LIMIT), data: creation!.code });
    const entry = await this.sendEthereum('contract', this.pickNode(random), raw, from, nonce);
    if (entry.outcome === 'acknowledged') {
      this.nonces.set(from, nonce + 1);
      if (transfer) this.transferred(transfer);
      else this.deployed(from, contractAddressOf(from, nonce), creation!.supply);
    } else if (entry.outcome === 'unanswered' || /^nonce_/.test(entry.error ?? '')) this.ethResync.add(from);
    return 'ok';
  }

  /** Sends an Ethereum transaction as wallets do, recording what the node answered in the history's words. */
  private async sendEthereum(
    operation: OperationKind,
    node: NodeProcess,
    raw: Hex,
    from: string,
    nonce: number,
  ): Promise<Submission> {
    const { history } = this.options;
    const hash = keccak256(raw);
    const entry = history.submit({ operation, node: node.name, hash, from, nonce });
    try {
      history.acknowledged(entry, await node.client().rpcCall<string>('eth_sendRawTransaction', [raw]));
    } catch (error) {
      const refusal = refusalOf(error);
      const name =
        refusal === undefined ? undefined : (ETH_REFUSALS.find(([words]) => words.test(refusal))?.[1] ?? refusal);
      if (name === 'already_known') history.acknowledged(entry, hash);
      else if (name) history.refused(entry, name);
      else history.unanswered(entry, (error as Error).message);
    }
    return entry;
  }

  /**
   * At the end, with every node back: an account whose sequence has a gap (a transaction lost with a
   * crashed node) gets transfers that fill it, so what it sent after the gap can be mined. A nonce is
   * filled only once every node agrees it is missing (none holds it pending), so a filler never races
   * a transaction still on its way.
   */
  async fillGaps(nodes: readonly NodeProcess[]): Promise<number> {
    let filled = 0;
    const { testnet } = this.options;
    const [first, second] = testnet.accounts;
    const identities = [
      ...testnet.accounts.map((account) => ({
        address: account.address,
        fill: (next: number) =>
          this.send(
            'filler',
            nodes[0]!,
            this.sign(
              account,
              'transfer',
              transferPayload(account === first ? second!.address : first!.address, 'OMC', 1n),
              next,
            ),
          ),
      })),
      // An Ethereum identity fills with a transfer of nothing to itself.
      ...testnet.ethAccounts.map((eth) => ({
        address: accountAddress(eth.address),
        fill: async (next: number) =>
          this.sendEthereum(
            'filler',
            nodes[0]!,
            await eth.signTransaction({
              chainId: this.options.evmChainId,
              nonce: next,
              gas: 21_000n,
              to: eth.address,
              value: 0n,
              ...ETH_FEES,
            }),
            accountAddress(eth.address),
            next,
          ),
      })),
    ];
    for (const { address, fill } of identities) {
      const highest = Math.max(
        -1,
        ...this.options.history.submissions
          .filter((s) => s.from === address && s.outcome === 'acknowledged')
          .map((s) => s.nonce ?? -1),
      );
      for (let attempt = 0; attempt < 50; attempt++) {
        const seen = await Promise.all(nodes.map((node) => node.client(15_000).getNonce(address)));
        const next = Math.max(...seen);
        if (next > highest) break;
        if (seen.some((n) => n !== next)) {
          await this.sleep(200);
          continue;
        }
        const entry = await fill(next);
        if (entry.outcome !== 'acknowledged') break;
        filled += 1;
        await nodes[0]!
          .client(30_000)
          .waitForTransaction(entry.hash!, { timeoutMs: 30_000 })
          .catch(() => undefined);
      }
    }
    return filled;
  }
}

import {
  RpcError,
  type BatchCall,
  type DealView,
  type JobView,
  type PeerInfo,
  type SvcClient,
} from '../../sdk/index.js';
import { encodeFunctionData, parseAbi } from 'viem';
import { toEthAddress } from '../../sdk/address.js';
import type { NodeProcess } from '../node-process.js';

const BALANCE_OF = parseAbi(['function balanceOf(address) view returns (uint256)']);

/** A mined transaction as the model replays it: where, when, what, and how it ended. */
export interface MinedTx {
  readonly height: number;
  readonly index: number;
  readonly timestamp: number;
  readonly hash: string;
  readonly from: string;
  readonly nonce: number;
  readonly kind: string;
  readonly payload: Record<string, unknown>;
  readonly status: 'success' | 'failed';
  readonly error?: { name: string; reason: string };
  /** The block's proposer (priority fees of EVM transactions go to it). */
  readonly proposer: string;
  /** What an EVM transaction's receipt says it used and paid per gas, and the contract a create made. */
  readonly gasUsed?: number;
  readonly effectiveGasPrice?: bigint;
  readonly contractAddress?: string;
}

/** Balances as a node reports them (base units). */
export interface ReportedBalance {
  readonly omc: bigint;
  readonly ogt: bigint;
  readonly bonded: Record<string, bigint>;
}

export interface BlockSeen {
  readonly hash: string;
  readonly stateRoot: string;
  readonly timestamp: number;
  readonly proposer: string;
  readonly transactions: readonly string[];
}

/** What one node says, for the checks. */
export interface NodeReport {
  readonly name: string;
  readonly head: number;
  readonly blocks: Map<number, BlockSeen>;
  readonly balances: Map<string, ReportedBalance>;
  /** ERC-20 balances (`balanceOf` by `svc_call`) as `<token>:<holder>`, of every contract a mined create made. */
  readonly tokenBalances: Map<string, bigint>;
  readonly healthStatus: number;
  readonly health: string;
  /** Its RPC address, and the peers it is connected to (`svc_peers`) once the run has settled. */
  readonly url: string;
  readonly peers: PeerInfo[];
}

/** Everything read from the testnet once it has settled, for a height every node has. */
export interface Collected {
  readonly height: number;
  readonly reference: string;
  readonly nodes: NodeReport[];
  readonly txs: MinedTx[];
  readonly genesis: Map<string, ReportedBalance>;
  readonly jobs: Map<string, JobView>;
  readonly deals: Map<string, DealView>;
  /** Each workload account's next nonce as the reference node counts it after the run (mined and pending). */
  readonly nonces: Map<string, number>;
  readonly validators: { operator: string; status: string; tombstonedAt: number | null }[];
  /** The EVM's base fee (fixed on this chain): burned from every EVM transaction's fee. */
  readonly baseFee: bigint;
}

/**
 * Calls in batches of at most 100 (the node's default limit), `parallel` batches at a time; a call
 * that fails throws, naming the method.
 */
export async function batchAll<T>(client: SvcClient, calls: readonly BatchCall[], parallel = 2): Promise<T[]> {
  const results: T[] = new Array<T>(calls.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < calls.length) {
        const start = next;
        next += 100;
        const answers = await client.batch<T>(calls.slice(start, start + 100));
        answers.forEach((answer, i) => {
          if (!answer.ok)
            throw new RpcError(answer.error.code, answer.error.message, {
              ...answer.error.data,
              reason: `${calls[start + i]!.method}: ${answer.error.data?.reason ?? answer.error.message}`,
            });
          results[start + i] = answer.result;
        });
      }
    }),
  );
  return results;
}

const balanceOf = (raw: { omc: string; ogt: string; bonded: Record<string, string> }): ReportedBalance => ({
  omc: BigInt(raw.omc),
  ogt: BigInt(raw.ogt),
  bonded: Object.fromEntries(Object.entries(raw.bonded).map(([k, v]) => [k, BigInt(v)])),
});

/** Blocks 1..height as a node has them. */
async function blocksOf(client: SvcClient, height: number): Promise<Map<number, BlockSeen>> {
  const heights = Array.from({ length: height }, (_, i) => i + 1);
  const blocks = await batchAll<{
    height: number;
    hash: string;
    stateRoot: string;
    timestamp: number;
    proposer: string;
    transactions: string[];
  }>(
    client,
    heights.map((h) => ({ method: 'svc_getBlockByNumber', params: [h] })),
  );
  return new Map(
    blocks.map((b) => [
      b.height,
      {
        hash: b.hash,
        stateRoot: b.stateRoot,
        timestamp: b.timestamp,
        proposer: b.proposer,
        transactions: b.transactions,
      },
    ]),
  );
}

/** Balances of `addresses` after block `height`, as a node reports them. */
export async function balancesAt(
  client: SvcClient,
  addresses: readonly string[],
  height: number,
): Promise<Map<string, ReportedBalance>> {
  const raws = await batchAll<{ omc: string; ogt: string; bonded: Record<string, string> }>(
    client,
    addresses.map((address) => ({ method: 'svc_getBalance', params: [address, height] })),
  );
  return new Map(addresses.map((address, i) => [address, balanceOf(raws[i]!)]));
}

/** `balanceOf(holder)` of each token for each holder after block `height`, keyed `<token>:<holder>`. */
async function tokenBalancesAt(
  client: SvcClient,
  tokens: readonly string[],
  holders: readonly string[],
  height: number,
): Promise<Map<string, bigint>> {
  const pairs = tokens.flatMap((token) => holders.map((holder) => [token, holder] as const));
  const answers = await batchAll<{ output: string }>(
    client,
    pairs.map(([token, holder]) => ({
      method: 'svc_call',
      params: [
        {
          to: token,
          data: encodeFunctionData({ abi: BALANCE_OF, functionName: 'balanceOf', args: [toEthAddress(holder)] }),
        },
        height,
      ],
    })),
  );
  return new Map(pairs.map(([token, holder], i) => [`${token}:${holder}`, BigInt(answers[i]!.output)]));
}

/** Every address a transaction names: its sender, and the payload's addresses. */
function addressesIn(tx: MinedTx): string[] {
  const named = [tx.from];
  for (const value of Object.values(tx.payload))
    if (typeof value === 'string' && /^svc1[0-9a-f]{40}$/.test(value)) named.push(value);
  return named;
}

export interface CollectOptions {
  readonly nodes: readonly NodeProcess[];
  readonly reference: NodeProcess;
  /** A node that keeps all history, for the genesis balances (others keep only their window: 10,000 blocks). */
  readonly archive?: NodeProcess;
  readonly height: number;
  /** Addresses to read besides those the chain names (the workload's accounts, the providers). */
  readonly addresses: readonly string[];
  readonly accounts: readonly string[];
  readonly validators: readonly string[];
  /** The job contract's creation code: contracts created with it are no tokens (no balanceOf to read). */
  readonly jobContractCode?: string;
}

export async function collect(options: CollectOptions): Promise<Collected> {
  const { height, reference } = options;
  const ref = reference.client(60_000);
  const canonical = await blocksOf(ref, height);
  const placed = [...canonical].flatMap(([h, block]) =>
    block.transactions.map((hash, index) => ({ height: h, index, hash })),
  );
  const views = await batchAll<{
    hash: string;
    from: string;
    nonce: number;
    kind: string;
    payload: Record<string, unknown>;
  }>(
    ref,
    placed.map((p) => ({ method: 'svc_getTransaction', params: [p.hash] })),
  );
  const receipts = await batchAll<{
    status: 'success' | 'failed';
    error?: { name: string; reason: string };
    gasUsed?: number;
    effectiveGasPrice?: string;
    contractAddress?: string;
  }>(
    ref,
    placed.map((p) => ({ method: 'svc_getTransactionReceipt', params: [p.hash] })),
  );
  const txs: MinedTx[] = placed.map((p, i) => ({
    ...p,
    timestamp: canonical.get(p.height)!.timestamp,
    from: views[i]!.from,
    nonce: views[i]!.nonce,
    kind: views[i]!.kind,
    payload: views[i]!.payload,
    status: receipts[i]!.status,
    proposer: canonical.get(p.height)!.proposer,
    ...(receipts[i]!.error ? { error: receipts[i]!.error } : {}),
    ...(receipts[i]!.gasUsed !== undefined
      ? { gasUsed: receipts[i]!.gasUsed, effectiveGasPrice: BigInt(receipts[i]!.effectiveGasPrice ?? '0') }
      : {}),
    ...(receipts[i]!.contractAddress ? { contractAddress: receipts[i]!.contractAddress } : {}),
  }));
  const isJobContract = (tx: MinedTx): boolean =>
    tx.kind === 'evm.create' &&
    typeof tx.payload.code === 'string' &&
    tx.payload.code.toLowerCase() === options.jobContractCode?.toLowerCase();
  const tokens = txs
    .filter((tx) => tx.status === 'success' && tx.contractAddress && !isJobContract(tx))
    .map((tx) => tx.contractAddress!);
  const baseFee = BigInt((await ref.rpcCall<string>('eth_gasPrice')) ?? '0');
  const addresses = [...new Set([...options.addresses, ...options.validators, ...txs.flatMap(addressesIn)])].sort();
  const genesis = await balancesAt(options.archive?.client(60_000) ?? ref, addresses, 0);

  const signedJobs = txs.filter((tx) => tx.kind === 'oon.submitJob' && tx.status === 'success').map((tx) => tx.hash);
  // Contracts' jobs have no transaction of their own: listed by requester, for every contract a create made.
  const created = [
    ...new Set(txs.filter((tx) => tx.status === 'success' && tx.contractAddress).map((tx) => tx.contractAddress!)),
  ];
  const contractJobs = (await Promise.all(created.map((address) => jobsOf(ref, address, height)))).flat();
  const jobIds = [...signedJobs, ...contractJobs];
  const dealIds = txs.filter((tx) => tx.kind === 'omp.createDeal' && tx.status === 'success').map((tx) => tx.hash);
  const jobs = await batchAll<JobView>(
    ref,
    jobIds.map((id) => ({ method: 'svc_oonGetJob', params: [id, height] })),
  );
  const deals = await batchAll<DealView>(
    ref,
    dealIds.map((id) => ({ method: 'svc_ompGetDeal', params: [id, height] })),
  );
  const nonces = await batchAll<number>(
    ref,
    options.accounts.map((a) => ({ method: 'svc_getNonce', params: [a] })),
  );
  const validators = await Promise.all(
    options.validators.map((operator) =>
      ref.stakingStatus(operator).then((s) => ({ operator, status: s.status, tombstonedAt: s.tombstonedAt })),
    ),
  );

  const nodes = await Promise.all(
    options.nodes.map(async (node): Promise<NodeReport> => {
      const client = node.client(60_000);
      const health = await fetch(`${node.url}/health`).then(
        async (r) => ({ status: r.status, text: (await r.text()).trim() }),
        (error: unknown) => ({ status: 0, text: (error as Error).message }),
      );
      return {
        name: node.name,
        head: await client.blockNumber(),
        blocks: node === reference ? canonical : await blocksOf(client, height),
        balances: await balancesAt(client, addresses, height),
        tokenBalances: await tokenBalancesAt(client, tokens, options.accounts, height),
        healthStatus: health.status,
        health: health.text,
        url: node.url,
        peers: await client.peers(),
      };
    }),
  );
  return {
    height,
    reference: reference.name,
    nodes,
    txs,
    genesis,
    jobs: new Map(jobIds.map((id, i) => [id, jobs[i]!])),
    deals: new Map(dealIds.map((id, i) => [id, deals[i]!])),
    nonces: new Map(options.accounts.map((a, i) => [a, nonces[i]!])),
    validators,
    baseFee,
  };
}

/** The jobs a requester submitted up to `height` (newest first from the head, all pages). */
async function jobsOf(client: SvcClient, requester: string, height: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: number | undefined;
  for (;;) {
    const page = await client.listJobs({ requester, limit: 200, ...(cursor !== undefined ? { cursor } : {}) });
    ids.push(...page.jobs.filter((job) => job.submittedAt <= height).map((job) => job.jobId));
    if (page.cursor === null) return ids;
    cursor = page.cursor;
  }
}

import type { Collected, MinedTx } from './collect.js';
import type { History, Submission } from './history.js';
import type { Manifest } from './manifest.js';
import { ReferenceModel } from './model.js';
import type { NodeExit } from '../node-process.js';

export interface CheckResult {
  readonly name: string;
  readonly passed: boolean;
  /** What failed (at most a screenful), or a line of what was checked. */
  readonly details: string[];
}

/** Block times and the runner's clock are the same machine's, give or take a block's making. */
const CLOCK_SLACK_MS = 1_000;
/** Two transactions with one sender and nonce sent this close together raced: one of them wins. */
const RACE_MS = 10_000;
const MAX_DETAILS = 20;

const result = (name: string, failures: string[], summary: string): CheckResult => ({
  name,
  passed: failures.length === 0,
  details:
    failures.length === 0
      ? [summary]
      : [
          ...failures.slice(0, MAX_DETAILS),
          ...(failures.length > MAX_DETAILS ? [`… and ${failures.length - MAX_DETAILS} more`] : []),
        ],
});

export interface CheckInput {
  readonly manifest: Manifest;
  readonly collected: Collected;
  readonly history: History;
  readonly faucet: string;
  readonly accounts: readonly string[];
  readonly exits: ReadonlyMap<string, readonly NodeExit[]>;
  readonly problems: readonly string[];
  /** The creation code of the workload's job contract (WordCount): creates of it are job contracts, not tokens. */
  readonly jobContractCode?: string;
}

/** One block hash and one state root per height, on every node, up to the compared height. */
export function agreement({ collected }: CheckInput): CheckResult {
  const failures: string[] = [];
  const reference = collected.nodes.find((n) => n.name === collected.reference)!;
  for (const node of collected.nodes) {
    for (let h = 1; h <= collected.height; h++) {
      const mine = node.blocks.get(h);
      const theirs = reference.blocks.get(h)!;
      if (!mine || mine.hash !== theirs.hash || mine.stateRoot !== theirs.stateRoot) {
        failures.push(
          `${node.name} at block ${h}: ${mine ? `${mine.hash} / root ${mine.stateRoot}` : 'no block'}, ${reference.name}: ${theirs.hash} / root ${theirs.stateRoot}`,
        );
        break;
      }
    }
  }
  return result(
    'one block hash and state root per height on every node',
    failures,
    `${collected.nodes.length} nodes agree on blocks 1–${collected.height}`,
  );
}

export function noDoubleInclusion({ collected }: CheckInput): CheckResult {
  const seen = new Map<string, number>();
  const failures: string[] = [];
  for (const tx of collected.txs) {
    const before = seen.get(tx.hash);
    if (before !== undefined) failures.push(`${tx.hash} in block ${before} and again in block ${tx.height}`);
    seen.set(tx.hash, tx.height);
  }
  return result('no transaction in two blocks', failures, `${collected.txs.length} transactions, each in one block`);
}

/** What the explanations of lost transactions look things up in. */
interface Evidence {
  readonly collected: Collected;
  /** Hashes some node acknowledged. */
  readonly acknowledged: ReadonlySet<string>;
  /** Mined transactions by `sender:nonce`. */
  readonly byNonce: ReadonlyMap<string, MinedTx>;
  /** When each hash was first sent. */
  readonly submittedAt: ReadonlyMap<string, number>;
  /** When some node first acknowledged each hash. */
  readonly acknowledgedAt: ReadonlyMap<string, number>;
  /** Re-signed faucet mints already standing for a lost grant. */
  readonly claimed: Set<string>;
}

/** Why an acknowledged transaction that was not mined may legitimately be missing, or undefined. */
function explanation(
  s: Submission,
  { collected, acknowledged, byNonce, submittedAt, acknowledgedAt, claimed }: Evidence,
): string | undefined {
  const ackAt = s.answeredAt ?? s.sentAt;
  if (s.operation === 'faucet') {
    // A node whose mint lost its nonce to another node's signs the grant again, under a hash no client
    // was given: each such mint to the address, mined after the request, stands for one lost grant.
    const again = collected.txs.find(
      (tx) =>
        tx.kind === 'faucet.mint' &&
        tx.payload.to === s.to &&
        !acknowledged.has(tx.hash) &&
        !claimed.has(tx.hash) &&
        tx.timestamp >= s.sentAt - CLOCK_SLACK_MS,
    );
    if (again) {
      claimed.add(again.hash);
      return `its grant was signed again as ${again.hash}${again.status === 'failed' ? ` (${again.error?.name})` : ''}`;
    }
    // An address is granted once per cooldown whichever node it asks: a node cut off from the one that
    // granted it a moment before grants too, and the chain keeps one of the two.
    const granted = collected.txs.find(
      (tx) =>
        tx.kind === 'faucet.mint' &&
        tx.status === 'success' &&
        tx.payload.to === s.to &&
        Math.abs(tx.timestamp - ackAt) <
          ((tx.payload.cooldownSeconds as number | undefined) ?? 0) * 1000 + CLOCK_SLACK_MS,
    );
    if (granted)
      return `${s.to} was granted by ${granted.hash} ${((granted.timestamp - ackAt) / 1000).toFixed(1)} s from it, within the cooldown`;
    return undefined;
  }
  const other = s.from !== undefined && s.nonce !== undefined ? byNonce.get(`${s.from}:${s.nonce}`) : undefined;
  // A deliberately used nonce is refused by a node that has the block that used it; a node behind the
  // chain (cut off, paused, catching up) has not, takes it, and the chain drops it.
  if (s.operation === 'badNonce' && other && other.hash !== s.hash && other.timestamp < ackAt - CLOCK_SLACK_MS)
    return `its nonce was used by ${other.hash} in block ${other.height}, ${((ackAt - other.timestamp) / 1000).toFixed(1)} s before ${s.node} (behind the chain) took it`;
  if (other && other.hash !== s.hash) {
    const sent = submittedAt.get(other.hash);
    if (sent !== undefined && Math.abs(sent - ackAt) <= RACE_MS)
      return `its nonce went to ${other.hash}, sent ${((sent - ackAt) / 1000).toFixed(1)} s from it`;
    // The client signed the nonce again after asking a node that did not hold the pending one yet (a
    // node just restarted, while the chain stood still): the one acknowledged first was mined.
    const taken = acknowledgedAt.get(other.hash);
    if (taken !== undefined && taken < s.sentAt)
      return `its nonce went to ${other.hash}, acknowledged ${((s.sentAt - taken) / 1000).toFixed(1)} s before it was sent (${s.node} did not hold that one yet)`;
  }
  return undefined;
}

/** Every acknowledged transaction is mined, or its loss is explained; nothing a node refused is mined. */
export function acknowledgedMined({ collected, history }: CheckInput): CheckResult {
  const mined = new Map(collected.txs.map((tx) => [tx.hash, tx]));
  const byNonce = new Map(collected.txs.map((tx) => [`${tx.from}:${tx.nonce}`, tx]));
  const acknowledged = new Set(history.submissions.filter((s) => s.outcome === 'acknowledged').map((s) => s.hash!));
  const submittedAt = new Map<string, number>();
  for (const s of history.submissions) if (s.hash && !submittedAt.has(s.hash)) submittedAt.set(s.hash, s.sentAt);
  const acknowledgedAt = new Map<string, number>();
  for (const s of history.submissions) {
    if (s.outcome !== 'acknowledged' || !s.hash) continue;
    const at = s.answeredAt ?? s.sentAt;
    if (at < (acknowledgedAt.get(s.hash) ?? Number.POSITIVE_INFINITY)) acknowledgedAt.set(s.hash, at);
  }
  const failures: string[] = [];
  const explained: string[] = [];
  const judged = new Set<string>();
  const evidence: Evidence = { collected, acknowledged, byNonce, submittedAt, acknowledgedAt, claimed: new Set() };
  for (const s of history.submissions) {
    if (s.outcome !== 'acknowledged' || judged.has(s.hash!) || mined.has(s.hash!)) continue;
    judged.add(s.hash!);
    const why = explanation(s, evidence);
    if (why) explained.push(why);
    else
      failures.push(
        `${s.operation} ${s.hash} acknowledged by ${s.node} at ${new Date(s.answeredAt ?? s.sentAt).toISOString()} was never mined (${s.from ? `${s.from} nonce ${s.nonce}` : `to ${s.to}`})`,
      );
  }
  for (const s of history.submissions) {
    if (s.outcome === 'refused' && s.hash && !acknowledged.has(s.hash) && mined.has(s.hash))
      failures.push(
        `${s.operation} ${s.hash} refused by ${s.node} (${s.error}) was mined in block ${mined.get(s.hash)!.height}`,
      );
  }
  const total = acknowledged.size;
  return result(
    'every acknowledged transaction mined or explained',
    failures,
    `${total - explained.length} of ${total} acknowledged mined; ${explained.length} explained${explained.length > 0 ? ` (${explained.slice(0, 3).join('; ')}${explained.length > 3 ? '; …' : ''})` : ''}`,
  );
}

/** Balances, bonds, stakes and escrows on every node, and the accounts' nonces, against the reference model. */
export function matchesModel({ collected, faucet, accounts, jobContractCode }: CheckInput): CheckResult {
  const model = new ReferenceModel(collected.genesis, faucet, collected.baseFee, jobContractCode);
  for (const tx of collected.txs) model.apply(tx, collected.deals);
  const reference = collected.nodes.find((n) => n.name === collected.reference)!;
  model.settle(collected.jobs, collected.deals, (height) => reference.blocks.get(height)?.proposer);
  const failures = [...model.problems];
  const show = (v: bigint): string => v.toString();
  for (const node of collected.nodes) {
    let gained = 0n;
    let cut = 0n;
    for (const [address, reported] of node.balances) {
      const expected = model.account(address);
      const where = `${node.name} ${address} at block ${collected.height}`;
      if (reported.omc !== expected.omc)
        failures.push(`${where}: OMC ${show(reported.omc)}, model ${show(expected.omc)}`);
      if (model.slashBeneficiaries.has(address) && reported.ogt >= expected.ogt) gained += reported.ogt - expected.ogt;
      else if (reported.ogt !== expected.ogt)
        failures.push(`${where}: OGT ${show(reported.ogt)}, model ${show(expected.ogt)}`);
      for (const purpose of new Set([...Object.keys(reported.bonded), ...Object.keys(expected.bonded)])) {
        const [r, e] = [reported.bonded[purpose] ?? 0n, expected.bonded[purpose] ?? 0n];
        if (model.slashable.get(address)?.has(purpose) && r <= e) cut += e - r;
        else if (r !== e) failures.push(`${where}: bonded ${purpose} ${show(r)}, model ${show(e)}`);
      }
    }
    if (gained !== cut)
      failures.push(
        `${node.name}: slashed bonds ${show(cut)} OGT base units, but requesters and clients gained ${show(gained)}`,
      );
  }
  for (const node of collected.nodes) {
    for (const token of model.tokens.keys()) {
      for (const holder of accounts) {
        const reported = node.tokenBalances.get(`${token}:${holder}`);
        const expected = model.tokenBalance(token, holder);
        if (reported !== expected)
          failures.push(
            `${node.name} token ${token} balanceOf ${holder} at block ${collected.height}: ${reported ?? 'not read'}, model ${show(expected)}`,
          );
      }
    }
  }
  for (const address of accounts) {
    const [reported, expected] = [collected.nonces.get(address), model.account(address).nonce];
    if (reported !== expected)
      failures.push(`${address}: next nonce ${reported} on ${collected.reference}, model ${expected}`);
  }
  const jobs = model.jobs.size;
  const deals = model.deals.size;
  const contractJobs = [...model.jobs.values()].filter((job) => job.callbackReserve !== undefined).length;
  return result(
    'balances, nonces, bonds, stakes, escrows and token balances equal the reference model',
    failures,
    `${collected.nodes.length} nodes × ${collected.nodes[0]?.balances.size ?? 0} accounts at block ${collected.height}, ${accounts.length} nonces, ${jobs} job (${contractJobs} of ${model.jobContracts.size} job contracts, called back) and ${deals} deal escrows, ${model.tokens.size} ERC-20 contracts × ${accounts.length} holders (${model.evm.transactions} EVM transactions: ${model.evm.ethereum} Ethereum, ${model.evm.failed} failed)`,
  );
}

/** No address granted twice by the faucet within the cooldown the grant carried, by block time. */
export function faucetCooldown({ collected }: CheckInput): CheckResult {
  const last = new Map<string, MinedTx>();
  const failures: string[] = [];
  let grants = 0;
  for (const tx of collected.txs) {
    if (tx.kind !== 'faucet.mint' || tx.status !== 'success') continue;
    grants += 1;
    const to = tx.payload.to as string;
    const before = last.get(to);
    const cooldown = (tx.payload.cooldownSeconds as number | undefined) ?? 0;
    if (before && tx.timestamp - before.timestamp < cooldown * 1000)
      failures.push(
        `${to} granted in block ${before.height} and again in block ${tx.height}, ${tx.timestamp - before.timestamp} ms later (cooldown ${cooldown} s)`,
      );
    last.set(to, tx);
  }
  return result(
    'the faucet never granted an address twice within its cooldown',
    failures,
    `${grants} grants to ${last.size} addresses`,
  );
}

/** Never two finalized blocks at one height, as seen during the run and at the end; no validator punished for double signing. */
export function finality({ collected, history }: CheckInput): CheckResult {
  const failures: string[] = [];
  const byHeight = new Map<number, Map<string, string>>();
  const reference = collected.nodes.find((n) => n.name === collected.reference)!;
  for (const seen of history.sightings) {
    const hashes = byHeight.get(seen.height) ?? new Map<string, string>();
    hashes.set(seen.hash, seen.node);
    byHeight.set(seen.height, hashes);
    const final = reference.blocks.get(seen.height);
    if (final && final.hash !== seen.hash)
      failures.push(
        `${seen.node} reported block ${seen.height} finalized as ${seen.hash}; the chain has ${final.hash}`,
      );
  }
  for (const [height, hashes] of byHeight)
    if (hashes.size > 1)
      failures.push(
        `two finalized blocks at ${height}: ${[...hashes].map(([hash, node]) => `${hash} (${node})`).join(', ')}`,
      );
  for (const v of collected.validators)
    if (v.status === 'tombstoned')
      failures.push(
        `validator ${v.operator} was slashed for double signing at block ${v.tombstonedAt} (every validator of this run is honest)`,
      );
  for (const tx of collected.txs)
    if (tx.kind === 'staking.submitEvidence' && tx.status === 'success')
      failures.push(`evidence of double signing mined in block ${tx.height} (${tx.hash})`);
  const jailed = collected.validators.filter((v) => v.status === 'jailed').map((v) => v.operator);
  const unjailed = history.submissions.filter((s) => s.operation === 'unjail' && s.outcome === 'acknowledged').length;
  return result(
    'never two finalized blocks at one height; no honest validator slashed',
    [...new Set(failures)],
    `${history.sightings.length} finalized blocks seen on the way, none conflicting; ${collected.validators.length} validators, none slashed${unjailed > 0 ? `; ${unjailed} unjailed after downtime` : ''}${jailed.length > 0 ? `; jailed for downtime at the end: ${jailed.join(', ')}` : ''}`,
  );
}

/** Every node healthy at the end, none exited on its own, every perturbation undone. */
export function healthy({ collected, exits, problems }: CheckInput): CheckResult {
  const failures = [...problems];
  for (const node of collected.nodes)
    if (node.healthStatus !== 200) failures.push(`${node.name}: /health answered ${node.healthStatus} ${node.health}`);
  for (const [name, list] of exits)
    for (const exit of list)
      if (!exit.expected)
        failures.push(
          `${name} exited on its own at ${new Date(exit.at).toISOString()} (${exit.code ?? exit.signal})${exit.lastWords ? `: ${exit.lastWords}` : ''}`,
        );
  return result(
    'every node healthy',
    failures,
    `${collected.nodes.length} nodes answer /health 200; no node exited unasked`,
  );
}

/** The run did what the manifest asked: each operation with a weight was tried and answered. */
export function exercised({ manifest, history, collected }: CheckInput): CheckResult {
  const tally = history.tally();
  const failures = Object.entries(manifest.workload.mix)
    .filter(
      ([operation, weight]) =>
        weight > 0 && (tally[operation]?.acknowledged ?? 0) + (tally[operation]?.refused ?? 0) === 0,
    )
    .map(([operation]) => `no ${operation} operation was answered by any node`);
  const registrations = manifest.followers.reduce((n, f) => n + Number(f.compute) + Number(f.storage), 0);
  const registered = collected.txs.filter(
    (tx) => (tx.kind === 'oon.register' || tx.kind === 'omp.register') && tx.status === 'success',
  ).length;
  if (registered < registrations) failures.push(`${registered} of ${registrations} provider registrations were mined`);
  return result(
    'the workload was exercised',
    failures,
    Object.entries(tally)
      .map(
        ([operation, counts]) =>
          `${operation} ${Object.entries(counts)
            .map(([k, v]) => `${v} ${k}`)
            .join('/')}`,
      )
      .join(', '),
  );
}

/**
 * On test hosts: every node answered at its host's address and reached its peers at theirs, never
 * at 127.0.0.1; followers, given only the first validator to dial, found each other by peer exchange.
 */
export function onHosts({ collected }: CheckInput): CheckResult {
  const failures: string[] = [];
  const hostOf = (address: string): string | undefined =>
    /^\/ip4\/([\d.]+)\//.exec(address)?.[1] ?? /^https?:\/\/([\d.]+):/.exec(address)?.[1];
  const nodeHosts = new Map(collected.nodes.map((n) => [n.name, hostOf(n.url)]));
  const known = new Set(nodeHosts.values());
  for (const node of collected.nodes) {
    if (nodeHosts.get(node.name)?.startsWith('127.')) failures.push(`${node.name} answers on loopback (${node.url})`);
    for (const peer of node.peers)
      for (const address of peer.addresses)
        if (!known.has(hostOf(address)))
          failures.push(`${node.name} reaches peer ${peer.peerId} at ${address}, no test host's address`);
  }
  const followers = collected.nodes.filter((n) => n.name.startsWith('f'));
  const reachedHosts = new Map(collected.nodes.map((n) => [n.name, n.peers.flatMap((p) => p.addresses.map(hostOf))]));
  for (const follower of followers) {
    const reached = followers.filter(
      (other) => other !== follower && reachedHosts.get(follower.name)!.includes(nodeHosts.get(other.name)),
    );
    if (followers.length > 1 && reached.length === 0)
      failures.push(`${follower.name} is connected to no other follower: peer exchange found none`);
  }
  const links = collected.nodes.reduce((n, node) => n + node.peers.length, 0);
  return result(
    "nodes reach each other at their hosts' addresses, never at 127.0.0.1",
    failures,
    `${collected.nodes.length} hosts, ${links} connections, all between host addresses; followers found each other by peer exchange`,
  );
}

export const CHECKS = [
  agreement,
  noDoubleInclusion,
  acknowledgedMined,
  matchesModel,
  faucetCooldown,
  finality,
  healthy,
  exercised,
] as const;

/** The checks a run is judged by: on test hosts, also how the nodes reached each other. */
export const checksFor = (manifest: Manifest): readonly ((input: CheckInput) => CheckResult)[] =>
  manifest.hosts ? [...CHECKS, onHosts] : CHECKS;

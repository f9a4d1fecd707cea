import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountAddress, devnetKey } from '../../sdk/index.js';
import { checksFor, type CheckResult } from './checks.js';
import { collect, type Collected } from './collect.js';
import { History } from './history.js';
import type { Manifest } from './manifest.js';
import type { NodeProcess } from '../node-process.js';
import { Perturber, setDenied } from './perturbations.js';
import { Random } from './random.js';
import { Testnet, until } from './testnet.js';
import { jobCode, contractArtifacts, Workload } from './workload.js';

/**
 * The runner's own test-only faults, to show that the checks can fail. Neither touches a node: `balance`
 * adds one base unit to one account's OMC as the runner read it from one node (a node reporting a
 * wrong balance); `drop-tx` records one transfer as acknowledged by a node without sending it (a node
 * that admitted a transaction and lost it).
 */
export type RunnerFault = 'balance' | 'drop-tx';

export interface RunOptions {
  readonly manifest: Manifest;
  readonly faults?: readonly RunnerFault[];
  /** Keep the run's directory (data dirs and logs) even when every check passes. */
  readonly keep?: boolean;
  readonly say?: (line: string) => void;
}

export interface RunReport {
  readonly results: CheckResult[];
  readonly passed: number;
  readonly failed: number;
  /** The run's directory, when kept (a failed run always keeps its logs). */
  readonly kept?: string;
  readonly summary: string;
}

/** How long the end of a run may take to bring every node back and level. */
const SETTLE_TIMEOUT_MS = 180_000;

/** Samples each reachable node's finalized block every second while the run goes on. */
function watchFinality(testnet: Testnet, history: History): () => Promise<void> {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await Promise.all(
        testnet.nodes
          .filter((node) => node.state === 'up')
          .map(async (node) => {
            const block = await node
              .client(2_000)
              .getBlockByNumber('finalized')
              .catch(() => undefined);
            if (block)
              history.sightings.push({ node: node.name, at: Date.now(), height: block.height, hash: block.hash });
          }),
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

/** Every node back: started, resumed, and no cut in force. */
async function heal(testnet: Testnet): Promise<void> {
  testnet.restoreLinks();
  for (const node of testnet.nodes) if (node.state === 'paused') node.resume();
  await Promise.all(
    testnet.nodes.filter((n) => n.state === 'down').map((node) => node.start(testnet.bootstrapFor(node))),
  );
  await setDenied(testnet.nodes, () => []);
}

/** Waits until every node has reached the highest head seen now, with one hash there; returns that height. */
async function level(nodes: readonly NodeProcess[]): Promise<number> {
  const heads = await Promise.all(nodes.map((n) => n.client(10_000).blockNumber()));
  const target = Math.max(...heads);
  await until(
    async () =>
      Promise.all(
        nodes.map((n) =>
          n
            .client(10_000)
            .getBlockByNumber(target)
            .then(
              (b) => b.hash,
              () => undefined,
            ),
        ),
      ),
    (hashes) => hashes.every((h) => h !== undefined),
    SETTLE_TIMEOUT_MS,
    `every node to reach block ${target}`,
  );
  return target;
}

function describeDisruptions(history: History): string {
  const counts = new Map<string, number>();
  for (const d of history.disruptions) counts.set(d.kind, (counts.get(d.kind) ?? 0) + 1);
  return counts.size === 0
    ? 'no perturbations'
    : `${history.disruptions.length} perturbations (${[...counts].map(([k, n]) => `${k} ${n}`).join(', ')})`;
}

export async function runE2e(options: RunOptions): Promise<RunReport> {
  const { manifest } = options;
  const say = options.say ?? ((line: string) => process.stdout.write(`${line}\n`));
  const faults = new Set(options.faults ?? []);
  const dir = mkdtempSync(join(tmpdir(), `svc-e2e-${manifest.name}-${manifest.seed}-`));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  const history = new History();
  const random = Random.seeded(manifest.seed);
  const [perturbRandom, workloadRandom] = [random.split(), random.split()];
  say(
    `e2e ${manifest.name}: seed ${manifest.seed}, ${manifest.seconds} s, ${manifest.validators.count} validator(s), ${manifest.followers.length} follower(s), ${manifest.blockTime} ms blocks; run directory ${dir}`,
  );
  let testnet: Testnet | undefined;
  let collected: Collected | undefined;
  let results: CheckResult[] = [];
  let failure: Error | undefined;
  try {
    testnet = await Testnet.start(manifest, dir, history, say);
    const v0 = testnet.validators[0]!;
    const chainId = (await v0.client().chainInfo()).chainId;
    const artifacts = await contractArtifacts();
    const workload = new Workload({
      manifest,
      testnet,
      history,
      random: workloadRandom,
      chainId,
      evmChainId: Number(await v0.client().rpcCall<string>('eth_chainId')),
      code: await jobCode(),
      ...artifacts,
      dropOneTransfer: faults.has('drop-tx'),
    });
    const perturber = new Perturber(testnet, history, perturbRandom, manifest, say);
    const stopWatching = watchFinality(testnet, history);
    const started = Date.now();
    workload.start();
    perturber.start();
    while (Date.now() - started < manifest.seconds * 1000) {
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(10_000, manifest.seconds * 1000 - (Date.now() - started))),
      );
      const head = await v0
        .client(2_000)
        .blockNumber()
        .catch(() => undefined);
      const tally: Record<string, number> = {};
      for (const s of history.submissions) tally[s.outcome] = (tally[s.outcome] ?? 0) + 1;
      say(
        `+${Math.round((Date.now() - started) / 1000)} s: head ${head ?? '(v0 not answering)'}, ${tally.acknowledged ?? 0} acknowledged, ${tally.refused ?? 0} refused, ${tally.unanswered ?? 0} unanswered, ${describeDisruptions(history)}`,
      );
    }
    say('stopping the workload and the perturbations; bringing every node back');
    await perturber.stop();
    await workload.stop();
    await heal(testnet);
    await level(testnet.nodes);
    const filled = await workload.fillGaps(testnet.nodes);
    if (filled > 0) say(`filled ${filled} nonce gap(s): transactions acknowledged once that no node holds any more`);
    // A few blocks more, so what is pending is mined, then one height every node has.
    const now = await v0.client(10_000).blockNumber();
    await until(
      () => v0.client(10_000).blockNumber(),
      (h) => h >= now + 5,
      SETTLE_TIMEOUT_MS,
      'five more blocks',
    );
    await stopWatching();
    const height = await level(testnet.nodes);
    say(`collecting blocks 1–${height} and the state at ${height} from ${testnet.nodes.length} nodes`);
    const providers = testnet.followers.filter((f) => f.compute || f.storage).map((f) => f.operator);
    const validators = testnet.validatorKeys.map((k) => k.address);
    const archive = testnet.followers.find((_f, i) => manifest.followers[i]!.archive)?.node;
    const identities = [
      ...testnet.accounts.map((a) => a.address),
      ...testnet.ethAccounts.map((a) => accountAddress(a.address)),
    ];
    collected = await collect({
      nodes: testnet.nodes,
      reference: v0,
      ...(archive ? { archive } : {}),
      height,
      addresses: [...identities, ...providers],
      accounts: identities,
      validators,
      jobContractCode: artifacts.jobContract.bytecode,
    });
    if (faults.has('balance')) {
      // The runner's test-only fault: one node's reported balance of one account, off by one base unit.
      const node = collected.nodes.at(-1)!;
      const address = testnet.accounts[0]!.address;
      const reported = node.balances.get(address)!;
      node.balances.set(address, { ...reported, omc: reported.omc + 1n });
      say(`fault injected: ${node.name}'s reported OMC of ${address} raised by one base unit`);
    }
    const exits = new Map(testnet.nodes.map((n) => [n.name, n.exits] as const));
    const input = {
      manifest,
      collected,
      history,
      faucet: devnetKey('faucet', 0).address,
      accounts: identities,
      exits,
      problems: perturber.problems,
      jobContractCode: artifacts.jobContract.bytecode,
    };
    results = checksFor(manifest).map((check) => check(input));
  } catch (error) {
    failure = error as Error;
    results.push({ name: 'the run completed', passed: false, details: [failure.message] });
  } finally {
    await testnet?.close();
  }
  const passed = results.filter((r) => r.passed).length;
  const failed = results.length - passed;
  const summary = `e2e ${manifest.name} seed ${manifest.seed}: ${manifest.seconds} s, ${manifest.validators.count + manifest.followers.length} nodes, ${collected ? `blocks 1–${collected.height}, ${collected.txs.length} transactions mined` : 'no chain collected'}, ${history.submissions.filter((s) => s.outcome === 'acknowledged').length} acknowledged, ${describeDisruptions(history)}`;
  say('');
  say(summary);
  for (const r of results) {
    say(`${r.passed ? 'PASS' : 'FAIL'} ${r.name}`);
    for (const line of r.details) say(`     ${line}`);
  }
  say(`${passed} passed, ${failed} failed`);
  writeFileSync(join(dir, 'history.json'), JSON.stringify(history, null, 2));
  writeFileSync(join(dir, 'results.json'), JSON.stringify({ summary, results }, null, 2));
  const keep = failed > 0 || options.keep === true;
  if (keep) say(`logs and data dirs kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
  return { results, passed, failed, summary, ...(keep ? { kept: dir } : {}) };
}

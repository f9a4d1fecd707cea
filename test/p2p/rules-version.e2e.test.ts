import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { releaseWithRulesVersion } from '../helpers/releases.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetKey, SvcClient, toHex } from '../../sdk/index.js';
import { run, startNodeProcess, SVC_NODE, type RunningNode } from '../helpers/cli.js';
import { rpc, tempDir, waitFor } from '../helpers/test-node.js';
import { knownRulesVersions, NEWEST_RULES_VERSION } from '../../chain/rules-version.js';

/** This build's newest rules version, and the next release's. */
const OURS = NEWEST_RULES_VERSION;
const NEXT = OURS + 1;

// Two releases of svc-node: this build (newest chain rules version OURS), and a copy of it that
// implements NEXT too — what a release that adds a version would be. Each runs a network whose genesis
// file starts on its newest version; otherwise the two genesis files are the same.
const root = tempDir('svc-rules-');

function genesisFile(rulesVersion: number): string {
  const file = join(root, `genesis-v${rulesVersion}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      chainId: 'svc-rulesnet-1',
      rulesVersion,
      timestamp: Date.UTC(2026, 10, 1),
      validatorKey: toHex(devnetKey('validator', 0).publicKey),
      validator: devnetKey('validator', 0).address,
      accounts: [{ address: devnetKey('account', 0).address, omc: '1000', ogt: '10' }],
    }),
  );
  return file;
}

const nodeArgs = (genesis: string, dataDir: string, extra: string[] = []): string[] => [
  '--role',
  'full',
  '--network',
  'rulesnet',
  '--genesis',
  genesis,
  '--data-dir',
  dataDir,
  '--bind',
  '127.0.0.1:0',
  ...extra,
];
const p2pOf = (node: RunningNode): string =>
  /p2p listening on (\/ip4\/127\.0\.0\.1\/tcp\/\d+\/p2p\/\w+)/.exec(node.output())![1]!;
const logLines = (node: RunningNode): { time: number; msg: string }[] =>
  node
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { time: number; msg: string });
const refusals = (node: RunningNode): string[] =>
  node
    .output()
    .split('\n')
    .filter((line) => line.includes('refusing peer'));

let release2: string;
let v1: RunningNode;
let v2: RunningNode;
const dir2 = join(root, 'data-v2');

beforeAll(async () => {
  release2 = releaseWithRulesVersion(root, NEXT);
  v1 = await startNodeProcess(nodeArgs(genesisFile(OURS), join(root, 'data-v1')));
  await waitFor(
    () => v1.output(),
    (out) => /p2p listening on/.test(out),
    15_000,
    "this build's node",
  );
  v2 = await startNodeProcess(nodeArgs(genesisFile(NEXT), dir2, ['--bootstrap-peers', p2pOf(v1)]), release2);
}, 60_000);

afterAll(async () => {
  await Promise.all([v1?.stop(), v2?.stop()]);
});

describe('chain-rules versions', () => {
  it('two nodes of different rules versions refuse each other, with one log line naming both versions', async () => {
    // Whichever side finishes the status exchange first refuses and hangs up; the other may never read
    // the status it would refuse. At least one says why, naming both versions, and neither keeps the other.
    await waitFor(
      () => [...refusals(v1), ...refusals(v2)],
      (lines) => lines.length >= 1,
      20_000,
      'a node to refuse its peer',
    );
    const said = [
      ...refusals(v1).map((line) => ({ line, ours: OURS, theirs: NEXT })),
      ...refusals(v2).map((line) => ({ line, ours: NEXT, theirs: OURS })),
    ];
    for (const { line, ours, theirs } of said)
      expect(JSON.parse(line).msg).toMatch(
        new RegExp(`its network starts on chain rules version ${theirs}; this node's starts on version ${ours}$`),
      );
    for (const node of [v1, v2]) expect((await rpc<unknown[]>(node.url, 'svc_peers')).body.result).toEqual([]);
  });

  it('svc_nodeInfo, svc_chainInfo and /health?verbose show the rules version', async () => {
    for (const [node, version] of [
      [v1, OURS],
      [v2, NEXT],
    ] as const) {
      const client = new SvcClient(node.url);
      expect((await rpc<{ rulesVersion: number }>(node.url, 'svc_nodeInfo')).body.result!.rulesVersion).toBe(version);
      expect((await client.chainInfo()).rulesVersion).toBe(version);
      const health = (await (await fetch(`${node.url}/health?verbose`)).json()) as { rulesVersion: number };
      expect(health.rulesVersion).toBe(version);
    }
  });

  it('a data dir written under another version is refused at start, naming both; so is a genesis of a version this release does not implement', async () => {
    // The next release's node dials its bootstrap peer again after being hung up on, unless it refused that
    // peer itself (then it dials no more): once it has, the refusal stands and is not said again.
    if (refusals(v2).length === 0) {
      const refusedAt = (JSON.parse(refusals(v1)[0]!) as { time: number }).time;
      const redials = (): unknown[] =>
        logLines(v2).filter((entry) => entry.time > refusedAt && /bootstrap peer/.test(entry.msg));
      await waitFor(
        redials,
        (lines) => lines.length >= 1,
        15_000,
        "the next release's node to dial its bootstrap peer again",
      );
    }
    expect(refusals(v1).length).toBeLessThanOrEqual(1);
    expect(refusals(v2).length).toBeLessThanOrEqual(1);
    for (const node of [v1, v2]) expect((await rpc<unknown[]>(node.url, 'svc_peers')).body.result).toEqual([]);
    expect(await v2.stop()).toBe(0);
    const reopened = await run(SVC_NODE, [
      'start',
      '--log-format',
      'json',
      '--p2p-port',
      '0',
      ...nodeArgs(genesisFile(OURS), dir2),
    ]);
    expect(reopened.code).not.toBe(0);
    expect(reopened.stdout + reopened.stderr).toMatch(
      new RegExp(
        `the data dir holds a network that started on chain rules version ${NEXT}, not ${OURS} as its genesis says`,
      ),
    );
    const newer = await run(SVC_NODE, [
      'start',
      '--log-format',
      'json',
      '--p2p-port',
      '0',
      ...nodeArgs(genesisFile(NEXT), join(root, 'data-fresh')),
    ]);
    expect(newer.code).not.toBe(0);
    expect(newer.stdout + newer.stderr).toMatch(
      new RegExp(
        `the genesis runs chain rules version ${NEXT}; this release implements versions ${knownRulesVersions()}: run an svc-node release that implements version ${NEXT}`,
      ),
    );
  }, 30_000);
});

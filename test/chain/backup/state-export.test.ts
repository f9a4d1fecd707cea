import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chain } from '../../../chain/chain.js';
import { devnetKey, SvcClient, UNIT, type JobView } from '../../../sdk/index.js';
import { run, SVC_NODE } from '../../helpers/cli.js';
import { contracts } from '../../helpers/contracts.js';
import { media } from '../../helpers/media.js';
import { rpc, startTestNode, tempDir, waitFor, type TestNode } from '../../helpers/test-node.js';
import { fixture } from '../../helpers/wat.js';

// A devnet with something of everything in its state — transfers, a token contract and its storage, a
// finalized job, an active deal, a validator record with its stake bonded — exported at its head, and
// a node started on the genesis file the export wrote: every answer about that state is the same.
const source = tempDir();
const work = tempDir();
const exported = join(work, 'genesis.json');
let accounts: string[] = [];
let contractsOf: string[] = [];
let slots: [string, string][] = [];
let jobIds: string[] = [];
let dealIds: string[] = [];
let head = 0;

const chainOf = (node: TestNode): Chain => node.node.service<Chain>('chain');
const validator = devnetKey('account', 4);

beforeAll(async () => {
  const node = await startTestNode({ dataDir: source, validator: { blockTime: 50 } });
  try {
    const client = new SvcClient(node.url);
    for (let i = 0; i < 3; i++)
      await client.waitForTransaction(
        (await client.transfer(devnetKey('account', 1), devnetKey('account', 2).address, 'OMC', UNIT)).hash,
        { pollMs: 20 },
      );
    const token = contracts().Token as unknown as { abi: never; bytecode: `0x${string}` };
    const deployed = await client.deployContract(devnetKey('account', 3), { ...token, args: [1_000n] });
    await client.waitForTransaction(deployed.txHash, { pollMs: 20 });
    const job = await client.submitJob(devnetKey('account', 5), {
      runtime: 'wasm',
      code: fixture('upper'),
      input: new TextEncoder().encode('exported'),
      gasLimit: 1_000_000n,
      gasPrice: 1n,
    });
    expect((await client.waitForJob(job.jobId, { timeoutMs: 30_000 })).status).toBe('finalized');
    const object = await client.uploadObject(media.png(2048));
    const { dealId } = await client.createDeal(devnetKey('account', 6), {
      object,
      provider: devnetKey('validator', 0).address,
      replicas: 1,
      durationBlocks: 100_000,
      price: 1n,
    });
    expect((await client.waitForDeal(dealId, { timeoutMs: 30_000 })).status).toBe('active');
    // A validator that staked and unbonded in one block: its record and bonded stake, never in the set.
    const nonce = await client.getNonce(validator.address);
    await client.createValidator(validator, { stake: 20n * UNIT, moniker: 'leaving' }, { nonce });
    const unbond = await client.unbondValidator(validator, { nonce: nonce + 1 });
    expect((await client.waitForTransaction(unbond.hash, { pollMs: 20 })).status).toBe('success');
    const state = chainOf(node).state;
    accounts = [...state.entriesUnder('accounts/')].map(([key]) => key.slice('accounts/'.length));
    contractsOf = [...state.entriesUnder('evm/contract/')].map(([key]) => `0x${key.slice('evm/contract/'.length)}`);
    slots = [...state.entriesUnder('evm/storage/')].map(([key]) => {
      const [, , address, slot] = key.split('/');
      return [`0x${address}`, `0x${slot}`];
    });
    jobIds = (await client.listJobs({ limit: 100 })).jobs.map((j: JobView) => j.jobId);
    dealIds = [dealId];
  } finally {
    await node.stop();
  }
}, 120_000);

let before: TestNode;
let after: TestNode;
afterAll(async () => {
  await before?.stop();
  await after?.stop();
});

describe('export-state, and a network started from it', () => {
  it('writes the whole state after the head as a genesis file at that height', async () => {
    const result = await run(SVC_NODE, ['export-state', '--data-dir', source, '--out', exported]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(
      new RegExp(
        `^wrote the state after block (\\d+) of ${source} \\((\\d+) keys, chain rules version \\d+\\) to ${exported}\\n$`,
      ),
    );
    const genesis = JSON.parse(readFileSync(exported, 'utf8')) as Record<string, unknown>;
    head = genesis.initialHeight as number;
    expect(genesis).toMatchObject({
      chainId: 'svc-devnet-1',
      validator: devnetKey('validator', 0).address,
      exportedFrom: { height: head },
    });
    expect(Object.keys(genesis.state as object).length).toBeGreaterThan(accounts.length);
  });

  it('a node started on that genesis answers for every account, contract, slot, stake, provider, deal and job as the exported one did', async () => {
    before = await startTestNode({ dataDir: source, role: 'full' });
    after = await startTestNode({ genesis: exported, role: 'full', storage: 'memory' });
    expect(chainOf(before).head.height).toBe(head);
    expect(chainOf(after).head.height).toBe(head);
    const same = async (method: string, params: unknown[] = []): Promise<void> => {
      const [a, b] = await Promise.all([rpc(before.url, method, params), rpc(after.url, method, params)]);
      expect(a.body.error, `${method} ${JSON.stringify(params)}`).toBeUndefined();
      expect(b.body, `${method} ${JSON.stringify(params)}`).toEqual(a.body);
    };
    expect(accounts.length).toBeGreaterThan(20);
    for (const address of accounts) {
      await same('svc_getBalance', [address]);
      await same('svc_getNonce', [address]);
    }
    expect(contractsOf.length).toBeGreaterThanOrEqual(1);
    for (const address of contractsOf) {
      await same('eth_getCode', [address, 'latest']);
      await same('svc_getContract', [address]);
    }
    expect(slots.length).toBeGreaterThan(1);
    for (const [address, slot] of slots) await same('eth_getStorageAt', [address, slot, 'latest']);
    await same('svc_validators');
    for (const operator of [devnetKey('validator', 0).address, validator.address])
      await same('svc_stakingStatus', [operator]);
    expect((await new SvcClient(after.url).stakingStatus(validator.address)).status).toBe('unbonding');
    await same('svc_oonListProviders');
    await same('svc_ompListProviders');
    expect(jobIds.length).toBeGreaterThanOrEqual(1);
    await same('svc_oonListJobs', [{ limit: 100 }]);
    for (const jobId of jobIds) await same('svc_oonGetJob', [jobId]);
    await same('svc_ompListObjects', [{}]);
    for (const dealId of dealIds) await same('svc_ompGetDeal', [dealId]);
    const chainInfo = (await new SvcClient(after.url).chainInfo()) as unknown as Record<string, unknown>;
    expect(chainInfo).toMatchObject({ head: { height: head }, rulesSchedule: [{ height: 0 }] });
  });

  it('goes on from there as a chain of its own: its validator makes the next block, and a transfer lands', async () => {
    await after.stop();
    after = await startTestNode({ genesis: exported, validator: { blockTime: 50 } });
    const client = new SvcClient(after.url);
    const sent = await client.transfer(devnetKey('account', 7), devnetKey('account', 8).address, 'OMC', UNIT);
    const receipt = await client.waitForTransaction(sent.hash, { pollMs: 20 });
    expect(receipt.status).toBe('success');
    expect(receipt.blockNumber).toBeGreaterThan(head);
    await waitFor(
      () => chainOf(after).head.height,
      (h) => h >= head + 3,
      10_000,
      'blocks after the genesis',
    );
    await expect(client.getBlockByNumber(head - 1)).rejects.toMatchObject({ message: 'not_found' });
  });

  it('init --from-state makes a network of new validators of it: the old ones get their stakes back, the rest is the same', async () => {
    const out = join(work, 'net');
    const made = await run(SVC_NODE, [
      'init',
      '--validators',
      '1',
      '--from-state',
      exported,
      '--out',
      out,
      '--chain-id',
      'svc-restored-1',
      '--json',
    ]);
    expect(made.stderr).toBe('');
    const net = JSON.parse(made.stdout) as { nodes: { config: string; operator: string }[]; evmChainId: number };
    const config = JSON.parse(readFileSync(net.nodes[0]!.config, 'utf8')) as Record<string, unknown>;
    const restored = await startTestNode({
      ...config,
      storage: 'memory',
      rpc: { bind: '127.0.0.1:0' },
      p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [] },
    });
    try {
      const client = new SvcClient(restored.url);
      expect(await client.chainInfo()).toMatchObject({ chainId: 'svc-restored-1', head: { height: head } });
      expect(Number((await rpc<string>(restored.url, 'eth_chainId')).body.result)).toBe(net.evmChainId);
      const set = await client.validators();
      expect(set.validators.map((v) => v.operator)).toEqual([net.nodes[0]!.operator]);
      await expect(client.stakingStatus(validator.address)).rejects.toMatchObject({ message: 'not_validator' });
      const was = await new SvcClient(before.url).getBalance(validator.address);
      const now = await client.getBalance(validator.address);
      expect(now.ogt).toBe(was.ogt + 20n * UNIT);
      expect(now.bonded).toEqual({});
      for (const address of accounts.filter((a) => a !== validator.address)) {
        const [a, b] = await Promise.all([
          rpc(before.url, 'svc_getBalance', [address]),
          rpc(restored.url, 'svc_getBalance', [address]),
        ]);
        expect(b.body, address).toEqual(a.body);
      }
      for (const jobId of jobIds)
        expect(await client.getJob(jobId)).toEqual(await new SvcClient(before.url).getJob(jobId));
      // Its own validator makes the blocks from the export's height on.
      await waitFor(
        () => chainOf(restored).head.height,
        (h) => h >= head + 2,
        10_000,
        'blocks of the new network',
      );
    } finally {
      await restored.stop();
    }
  });

  it('exports the state after an earlier block within the history window, and refuses one outside it', async () => {
    const earlier = join(work, 'earlier.json');
    const at = head - 5;
    // The exported node stops first: an export takes its data dir's lock.
    await before.stop();
    const result = await run(SVC_NODE, [
      'export-state',
      '--data-dir',
      source,
      '--height',
      String(at),
      '--out',
      earlier,
    ]);
    before = await startTestNode({ dataDir: source, role: 'full' });
    expect(result.stdout).toContain(`wrote the state after block ${at} of`);
    const node = await startTestNode({ genesis: earlier, role: 'full', storage: 'memory' });
    try {
      for (const address of accounts.slice(0, 5)) {
        const [a, b] = await Promise.all([
          rpc<{ omc: string }>(before.url, 'svc_getBalance', [address, at]),
          rpc<{ omc: string }>(node.url, 'svc_getBalance', [address]),
        ]);
        expect(b.body.result).toEqual(a.body.result);
      }
    } finally {
      await node.stop();
    }
    const pruned = join(work, 'pruned');
    const small = await startTestNode({ dataDir: pruned, validator: { blockTime: 20 }, chain: { historyBlocks: 5 } });
    // An account that changes after block 3: its value then is superseded, and pruned once the window passes.
    const smallClient = new SvcClient(small.url);
    await waitFor(
      () => chainOf(small).head.height,
      (h) => h >= 5,
      10_000,
      'height 5',
    );
    const moved = await smallClient.transfer(devnetKey('account', 1), devnetKey('account', 2).address, 'OMC', UNIT);
    const { blockNumber } = await smallClient.waitForTransaction(moved.hash, { pollMs: 10 });
    await waitFor(
      () => chainOf(small).head.height,
      (h) => h >= blockNumber + 20,
      10_000,
      'the window past it',
    );
    await small.stop();
    const refused = await run(SVC_NODE, [
      'export-state',
      '--data-dir',
      pruned,
      '--height',
      '3',
      '--out',
      join(work, 'never.json'),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'svc-node: --height 3: this data dir no longer keeps the state of block 3 whole (older than its history window): export at a later height, or from an archive node\n',
    );
  });
});

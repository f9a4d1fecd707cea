import { afterEach, describe, expect, it } from 'vitest';
import { devnetKey, SvcClient, UNIT } from '../../sdk/index.js';
import { join } from 'node:path';
import { run, SVC, SVC_NODE } from '../helpers/cli.js';
import { startTestNode, tempDir, waitFor, type TestNode } from '../helpers/test-node.js';
import { failure } from '../helpers/rpc-failure.js';
import { plainDevnet } from '../helpers/plain-devnet.js';

const SEED_METHODS = ['svc_oonRegisterNode', 'svc_oonNodeStatus', 'svc_ompRegisterStorageNode', 'svc_ompStorageStatus'];

const running: TestNode[] = [];
afterEach(async () => {
  for (const node of running.splice(0).reverse()) await node.stop();
});

async function start(config: Record<string, unknown>): Promise<TestNode> {
  const node = await startTestNode({ ...plainDevnet(), storage: 'memory', ...config });
  running.push(node);
  return node;
}

const methodsOf = async (client: SvcClient): Promise<string[]> =>
  (await client.rpcCall<{ methods: { name: string }[] }>('rpc.discover')).methods.map((m) => m.name);

describe('provider capabilities on every node', () => {
  it('a default validator and a default full node answer all four registration and status methods and list them in rpc.discover', async () => {
    const validator = await start({ role: 'validator' });
    const full = await start({ role: 'full' });
    for (const node of [validator, full]) {
      const client = new SvcClient(node.url);
      expect(await methodsOf(client)).toEqual(expect.arrayContaining(SEED_METHODS));
      expect(await client.rpcCall('svc_oonNodeStatus')).toMatchObject({
        registered: false,
        status: 'unregistered',
        activeJobs: 0,
        completedJobs: 0,
      });
      expect(await client.rpcCall('svc_ompStorageStatus')).toMatchObject({
        registered: false,
        status: 'unregistered',
        usedBytes: 0,
        objects: 0,
      });
      const operator = node.node.keys.operator.address;
      const badCompute = await failure(
        client.rpcCall('svc_oonRegisterNode', [
          { operator, capabilities: ['wasm'], bond_ogt: 999, max_concurrent_jobs: 1 },
        ]),
      );
      expect(badCompute).toMatchObject({ code: -32020, message: 'bond_too_low', data: { minimum: 1000 } });
      const badStorage = await failure(
        client.rpcCall('svc_ompRegisterStorageNode', [
          { operator: 'svc1nope', storage_capacity_gb: 1, bond_ogt: 500, supported_formats: ['image'] },
        ]),
      );
      expect(badStorage).toMatchObject({ code: -32602, message: 'invalid_address' });
    }
    // The full node has no peers, so it is not synced: registering is refused as the seed orders.
    const fullClient = new SvcClient(full.url);
    const notSynced = await failure(
      fullClient.rpcCall('svc_oonRegisterNode', [
        { operator: full.node.keys.operator.address, capabilities: ['wasm'], bond_ogt: 1000, max_concurrent_jobs: 1 },
      ]),
    );
    expect(notSynced.message).toBe('not_synced');
  });

  it('a validator registers as a compute provider (its idle capacity) and shows active', async () => {
    const validator = await start({ role: 'validator', validator: { blockTime: 50 } });
    const client = new SvcClient(validator.url);
    const operator = validator.node.keys.operator.address;
    const funding = await client.transfer(devnetKey('account', 3), operator, 'OGT', 1500n * UNIT);
    await client.waitForTransaction(funding.hash, { pollMs: 20 });
    const pending = await client.rpcCall('svc_oonRegisterNode', [
      { operator, capabilities: ['wasm', 'evm'], bond_ogt: 1000, max_concurrent_jobs: 2 },
    ]);
    expect(pending).toMatchObject({ status: 'pending', dedicated: false });
    const active = await waitFor(
      () => client.rpcCall<{ status: string }>('svc_oonNodeStatus'),
      (s) => s.status === 'active',
      10_000,
      'the registration to be mined',
    );
    expect(active).toMatchObject({
      registered: true,
      operator,
      bond_ogt: '1000',
      capabilities: ['wasm', 'evm'],
      max_concurrent_jobs: 2,
      dedicated: false,
    });
    expect(await client.rpcCall('svc_oonListProviders')).toEqual([
      expect.objectContaining({ operator, max_concurrent_jobs: 2 }),
    ]);
  });

  it('registers an operator whose key was imported with `svc-node keys import` while the node runs', async () => {
    const node = await start({ role: 'validator', storage: 'rocksdb', validator: { blockTime: 50 } });
    const client = new SvcClient(node.url);
    const dir = tempDir();
    const keyFile = join(dir, 'operator.json');
    const created = await run(SVC, ['keys', 'new', '--out', keyFile, '--json']);
    const operator = (JSON.parse(created.stdout) as { address: string }).address;
    const storage = { operator, storage_capacity_gb: 10, bond_ogt: 500, supported_formats: ['video'] };
    expect(await failure(client.rpcCall('svc_ompRegisterStorageNode', [storage]))).toMatchObject({
      message: 'operator_key_unavailable',
    });
    const imported = await run(SVC_NODE, ['keys', 'import', keyFile, '--data-dir', node.dataDir]);
    expect(imported.code).toBe(0);
    const funding = await client.transfer(devnetKey('account', 2), operator, 'OGT', 600n * UNIT);
    await client.waitForTransaction(funding.hash, { pollMs: 20 });
    // Pending until its block; with 50 ms blocks on a loaded machine the block may come before the answer.
    const registered = await client.rpcCall<{ status: string; operator: string }>('svc_ompRegisterStorageNode', [
      storage,
    ]);
    expect(registered.operator).toBe(operator);
    expect(['pending', 'active']).toContain(registered.status);
    await waitFor(
      () => client.rpcCall<{ status: string }>('svc_ompStorageStatus'),
      (s) => s.status === 'active',
      10_000,
      'the registration to be mined',
    );
  });

  it('a compute-role node says it dedicates its capacity', async () => {
    const compute = await start({ role: 'compute' });
    expect(await new SvcClient(compute.url).rpcCall('svc_oonNodeStatus')).toMatchObject({
      status: 'unregistered',
      dedicated: true,
    });
  });

  it('a capability switched off in the config answers capability_disabled, never method-not-found, and stays listed', async () => {
    const node = await start({ role: 'validator', compute: { enabled: false }, 'omp-storage': { enabled: false } });
    const client = new SvcClient(node.url);
    expect(await methodsOf(client)).toEqual(expect.arrayContaining(SEED_METHODS));
    const operator = node.node.keys.operator.address;
    const calls: [string, unknown[]][] = [
      ['svc_oonNodeStatus', []],
      ['svc_oonRegisterNode', [{ operator, capabilities: ['wasm'], bond_ogt: 1000, max_concurrent_jobs: 1 }]],
      ['svc_oonUnregisterNode', []],
      ['svc_ompStorageStatus', []],
      [
        'svc_ompRegisterStorageNode',
        [{ operator, storage_capacity_gb: 1, bond_ogt: 500, supported_formats: ['image'] }],
      ],
    ];
    for (const [method, params] of calls) {
      const error = await failure(client.rpcCall(method, params), method);
      expect({ method, code: error.code, message: error.message }).toEqual({
        method,
        code: -32025,
        message: 'capability_disabled',
      });
      expect(error.data?.reason).toMatch(/switched off in this node's config/);
    }
  });
});

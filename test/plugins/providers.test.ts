import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetKey, generateKeyPair, type RpcError, SvcClient, UNIT } from '../../sdk/index.js';
import type { Chain } from '../../chain/chain.js';
import type { P2pService } from '../../p2p/service.js';
import { run, SVC } from '../helpers/cli.js';
import { startTestNode, tempDir, syncStatus, waitFor, type TestNode } from '../helpers/test-node.js';
import { failure } from '../helpers/rpc-failure.js';
import { plainDevnet } from '../helpers/plain-devnet.js';

// A real two-node devnet: a validator, and a compute node that follows it.
let validator: TestNode;
let compute: TestNode;
let computeDir: string;
let v: SvcClient;
let c: SvcClient;
let operator: string;

function computeConfig(dataDir: string) {
  return {
    role: 'compute',
    dataDir,
    p2p: {
      host: '127.0.0.1',
      port: 0,
      bootstrapPeers: [validator.node.service<P2pService>('p2p').listenAddresses[0]!],
    },
  };
}

beforeAll(async () => {
  validator = await startTestNode({ ...plainDevnet(), validator: { blockTime: 50 } });
  computeDir = tempDir();
  compute = await startTestNode({ ...plainDevnet(), ...computeConfig(computeDir) });
  v = new SvcClient(validator.url);
  c = new SvcClient(compute.url);
  operator = compute.node.keys.operator.address;
  await waitFor(() => syncStatus(compute).synced, Boolean, 10_000, 'compute node to sync');
});
afterAll(async () => {
  await compute?.stop();
  await validator?.stop();
});

const refusal = (method: string, params: unknown[], client = c): Promise<RpcError> =>
  failure(client.rpcCall(method, params), `${method} ${JSON.stringify(params)}`);

const computeRegistration = (overrides: Record<string, unknown> = {}) => ({
  operator,
  capabilities: ['wasm', 'evm'],
  bond_ogt: 1000,
  max_concurrent_jobs: 4,
  ...overrides,
});
const storageRegistration = (overrides: Record<string, unknown> = {}) => ({
  operator,
  storage_capacity_gb: 250,
  bond_ogt: 500,
  supported_formats: ['image', 'document'],
  ...overrides,
});

describe('compute and storage registration on a two-node devnet', () => {
  it('refuses every invalid compute registration with the right error and field', async () => {
    const cases: [Record<string, unknown>, string, Record<string, unknown>?][] = [
      [computeRegistration({ operator: 'svc1nothex' }), 'invalid_address', { field: 'operator' }],
      [computeRegistration({ extra: true }), 'invalid_params', { field: 'extra' }],
      [computeRegistration({ capabilities: [] }), 'invalid_params', { field: 'capabilities' }],
      [computeRegistration({ capabilities: ['wasm', 'wasm'] }), 'invalid_params', { field: 'capabilities' }],
      [
        computeRegistration({ capabilities: ['gpu'] }),
        'invalid_params',
        { field: 'capabilities.0', reason: 'capabilities.0 must be one of "wasm", "evm"' },
      ],
      [computeRegistration({ capabilities: 'wasm' }), 'invalid_params', { field: 'capabilities' }],
      [computeRegistration({ max_concurrent_jobs: 0 }), 'invalid_params', { field: 'max_concurrent_jobs' }],
      [computeRegistration({ max_concurrent_jobs: 1.5 }), 'invalid_params', { field: 'max_concurrent_jobs' }],
      [computeRegistration({ max_concurrent_jobs: '4' }), 'invalid_params', { field: 'max_concurrent_jobs' }],
      [computeRegistration({ bond_ogt: -1 }), 'invalid_params'],
      [computeRegistration({ bond_ogt: 'lots' }), 'invalid_params'],
      [computeRegistration({ bond_ogt: 999 }), 'bond_too_low', { minimum: 1000 }],
      [computeRegistration({ bond_ogt: '999.999999999999999999' }), 'bond_too_low', { minimum: 1000 }],
    ];
    const { max_concurrent_jobs: _omitted, ...missing } = computeRegistration();
    cases.push([missing, 'invalid_params']);
    for (const [registration, message, data] of cases) {
      const error = await refusal('svc_oonRegisterNode', [registration]);
      expect({ registration, message: error.message }).toEqual({ registration, message });
      if (data) expect(error.data).toMatchObject(data);
    }
    expect((await refusal('svc_oonRegisterNode', [])).message).toBe('invalid_params');
    expect((await refusal('svc_oonRegisterNode', [computeRegistration(), 1])).message).toBe('invalid_params');
  });

  it('refuses every invalid storage registration with the right error and field', async () => {
    const cases: [Record<string, unknown>, string, Record<string, unknown>?][] = [
      [storageRegistration({ operator: 42 }), 'invalid_address'],
      [storageRegistration({ storage_capacity_gb: 0 }), 'invalid_params', { field: 'storage_capacity_gb' }],
      [storageRegistration({ storage_capacity_gb: -5 }), 'invalid_params', { field: 'storage_capacity_gb' }],
      [storageRegistration({ supported_formats: [] }), 'invalid_params', { field: 'supported_formats' }],
      [storageRegistration({ supported_formats: ['audio'] }), 'invalid_params'],
      [
        storageRegistration({ supported_formats: ['video', 'video'] }),
        'invalid_params',
        { field: 'supported_formats' },
      ],
      [storageRegistration({ capabilities: ['wasm'] }), 'invalid_params', { field: 'capabilities' }],
      [storageRegistration({ bond_ogt: 499.5 }), 'bond_too_low', { minimum: 500 }],
    ];
    for (const [registration, message, data] of cases) {
      const error = await refusal('svc_ompRegisterStorageNode', [registration]);
      expect({ registration, message: error.message }).toEqual({ registration, message });
      if (data) expect(error.data).toMatchObject(data);
    }
  });

  it('refuses an operator whose key the node does not hold, and an unfunded operator', async () => {
    const stranger = generateKeyPair().address;
    expect(await refusal('svc_oonRegisterNode', [computeRegistration({ operator: stranger })])).toMatchObject({
      message: 'operator_key_unavailable',
      code: -32024,
    });
    const unfunded = await refusal('svc_oonRegisterNode', [computeRegistration()]);
    expect(unfunded).toMatchObject({ message: 'insufficient_funds', code: -32021 });
    // In the user's units: tokens, not base units.
    expect(unfunded.data?.reason).toBe(`${operator} holds 0 OGT, needs 1000 OGT`);
    expect(await c.rpcCall('svc_oonNodeStatus')).toMatchObject({ registered: false, status: 'unregistered' });
  });

  it('answers not_synced on a node that has not synced yet', async () => {
    const lonely = await startTestNode({ ...plainDevnet(), role: 'compute', p2p: { host: '127.0.0.1', port: 0 } });
    try {
      const client = new SvcClient(lonely.url);
      const error = await refusal(
        'svc_oonRegisterNode',
        [computeRegistration({ operator: lonely.node.keys.operator.address })],
        client,
      );
      expect(error).toMatchObject({ message: 'not_synced', code: -32022 });
    } finally {
      await lonely.stop();
    }
  });

  it('registers a funded operator: pending, then active; the bond leaves its OGT exactly; every node lists it', async () => {
    const funding = await v.transfer(devnetKey('account', 5), operator, 'OGT', 2000n * UNIT);
    await v.waitForTransaction(funding.hash, { pollMs: 20 });
    await waitFor(
      () => c.getBalance(operator),
      (b) => b.ogt === 2000n * UNIT,
      10_000,
      'the compute node to see the funding',
    );

    const registered = await c.rpcCall<Record<string, unknown>>('svc_oonRegisterNode', [computeRegistration()]);
    // Pending until its block; with 50 ms blocks on a loaded machine the block may come before the answer.
    expect(['pending', 'active']).toContain(registered.status);
    expect(registered).toMatchObject({
      registered: true,
      operator,
      capabilities: ['wasm', 'evm'],
      bond_ogt: '1000',
      max_concurrent_jobs: 4,
      activeJobs: 0,
      completedJobs: 0,
      peerId: compute.node.keys.peerId,
    });
    const active = await waitFor(
      () => c.rpcCall<{ status: string }>('svc_oonNodeStatus'),
      (s) => s.status === 'active',
      10_000,
      'the registration to be mined',
    );
    expect(active).toMatchObject({ registered: true, operator, bond_ogt: '1000' });
    expect((await c.getBalance(operator)).ogt).toBe(1000n * UNIT);

    const providers = await v.rpcCall<Record<string, unknown>[]>('svc_oonListProviders');
    expect(providers).toEqual([
      {
        operator,
        peerId: compute.node.keys.peerId,
        capabilities: ['wasm', 'evm'],
        max_concurrent_jobs: 4,
        bond_ogt: '1000',
        registeredAt: expect.any(Number),
      },
    ]);
    expect(await refusal('svc_oonRegisterNode', [computeRegistration()])).toMatchObject({
      message: 'already_registered',
      code: -32023,
    });
  });

  it('holds a second, separate bond for storage on the same node: 1,500 OGT in two bonds', async () => {
    const registered = await c.rpcCall<Record<string, unknown>>('svc_ompRegisterStorageNode', [
      storageRegistration({ bond_ogt: '500' }),
    ]);
    // Pending until its block, which may come before the answer (50 ms blocks).
    expect(['pending', 'active']).toContain(registered.status);
    expect(registered).toMatchObject({
      storage_capacity_gb: 250,
      supported_formats: ['image', 'document'],
      bond_ogt: '500',
    });
    await waitFor(
      () => c.rpcCall<{ status: string }>('svc_ompStorageStatus'),
      (s) => s.status === 'active',
      10_000,
    );
    expect((await c.getBalance(operator)).ogt).toBe(500n * UNIT);
    const [computeBond] = await v.rpcCall<{ bond_ogt: string }[]>('svc_oonListProviders');
    const [storageBond] = await v.rpcCall<{ bond_ogt: string; operator: string }[]>('svc_ompListProviders');
    expect([computeBond!.bond_ogt, storageBond!.bond_ogt, storageBond!.operator]).toEqual(['1000', '500', operator]);
    const account = compute.node.service<Chain>('chain').state.get(`accounts/${operator}`);
    const { decodeAccount } = await import('../../chain/state/accounts.js');
    expect(decodeAccount(account).bonded).toEqual({ compute: 1000n * UNIT, storage: 500n * UNIT });
    expect(await c.getBalance(operator)).toMatchObject({
      ogt: 500n * UNIT,
      bonded: { compute: 1000n * UNIT, storage: 500n * UNIT },
      bondedOGT: '1500.000000000000000000',
    });
    const shown = await run(SVC, ['balance', operator, '--url', compute.url]);
    expect(shown.stdout).toContain('  bonded OGT 1500.000000000000000000 (compute 1000, storage 500)');
    expect(await refusal('svc_ompRegisterStorageNode', [storageRegistration()])).toMatchObject({
      message: 'already_registered',
    });
  });

  it('keeps the registrations across a restart of the compute node', async () => {
    await compute.stop();
    compute = await startTestNode({ ...plainDevnet(), ...computeConfig(computeDir) });
    c = new SvcClient(compute.url);
    expect(compute.node.keys.operator.address).toBe(operator);
    expect(await c.rpcCall('svc_oonNodeStatus')).toMatchObject({
      registered: true,
      status: 'active',
      operator,
      bond_ogt: '1000',
    });
    expect(await c.rpcCall('svc_ompStorageStatus')).toMatchObject({
      registered: true,
      status: 'active',
      operator,
      bond_ogt: '500',
    });
  });

  it('returns the bond after the unbonding period once unregistered', async () => {
    await waitFor(() => syncStatus(compute).synced, Boolean, 10_000);
    const before = (await c.getBalance(operator)).ogt;
    await c.rpcCall('svc_oonUnregisterNode');
    const unbonding = await waitFor(
      () => c.rpcCall<{ status: string; releaseAt: number | null }>('svc_oonNodeStatus'),
      (s) => s.releaseAt !== null,
      10_000,
    );
    expect(unbonding.status).toBe('unbonding');
    expect(unbonding.releaseAt).toBeGreaterThan(0);
    const again = await refusal('svc_oonUnregisterNode', []);
    expect(again).toMatchObject({
      message: 'invalid_params',
      data: { status: 'unbonding', releaseAt: unbonding.releaseAt },
    });
    expect(again.data?.reason).toContain(`already unbonding: the bond returns at block ${unbonding.releaseAt}`);
    expect(await v.rpcCall('svc_oonListProviders')).toEqual([]);
    await waitFor(
      () => c.rpcCall<{ status: string }>('svc_oonNodeStatus'),
      (s) => s.status === 'unregistered',
      15_000,
      'the bond to be released',
    );
    expect((await c.getBalance(operator)).ogt).toBe(before + 1000n * UNIT);
    // The storage bond is untouched.
    expect(await c.rpcCall('svc_ompStorageStatus')).toMatchObject({ status: 'active', bond_ogt: '500' });
  });
});

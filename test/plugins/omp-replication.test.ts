import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetKey, formatAmountShort, generateKeyPair, SvcClient, UNIT } from '../../sdk/index.js';
import type { P2pService } from '../../p2p/service.js';
import { media } from '../helpers/media.js';
import { startTestNode, syncStatus, tempDir, waitFor, type TestNode } from '../helpers/test-node.js';
import { run, SVC } from '../helpers/cli.js';
import { plainDevnet } from '../helpers/plain-devnet.js';

// A real 3-node devnet: a validator and two storage providers (A and B), which know only the
// validator (their bootstrap peer) and find each other through it.
let validator: TestNode;
let a: TestNode;
let b: TestNode;
let v: SvcClient;
const buyer = generateKeyPair();

async function register(node: TestNode, account: number): Promise<string> {
  const client = new SvcClient(node.url);
  const operator = node.node.keys.operator.address;
  await v.waitForTransaction((await v.transfer(devnetKey('account', account), operator, 'OGT', 1000n * UNIT)).hash);
  await waitFor(
    () => client.getBalance(operator).then((x) => x.ogt),
    (ogt) => ogt >= 1000n * UNIT,
    20_000,
    'the operator funds',
  );
  await client.ompRegisterStorageNode({
    operator,
    storage_capacity_gb: 0.1,
    bond_ogt: 500,
    supported_formats: ['image'],
  });
  await waitFor(
    () => client.ompStorageStatus(),
    (status) => status.status === 'active',
    20_000,
    'the registration',
  );
  return operator;
}

let operatorA: string;
let operatorB: string;

beforeAll(async () => {
  validator = await startTestNode({ ...plainDevnet(), validator: { blockTime: 150 } });
  v = new SvcClient(validator.url);
  const bootstrap = [validator.node.service<P2pService>('p2p').listenAddresses[0]!];
  const storage = () =>
    startTestNode({ ...plainDevnet(), role: 'full', p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: bootstrap } });
  [a, b] = await Promise.all([storage(), storage()]);
  await waitFor(() => syncStatus(a).synced && syncStatus(b).synced, Boolean, 20_000, 'the storage nodes to sync');
  operatorA = await register(a, 7);
  operatorB = await register(b, 8);
  await v.waitForTransaction((await v.transfer(devnetKey('account', 9), buyer.address, 'OMC', 100n * UNIT)).hash);
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await validator?.stop();
});

describe('replicated objects', { timeout: 90_000 }, () => {
  const bytes = media.png(3 * 1_048_576 + 777);
  let cid: string;
  let dealId: string;

  it('a deal of 2 replicas: the second provider fetches the object from the first (found through a peer), checks it, accepts; then both prove', async () => {
    const object = await new SvcClient(a.url).uploadObject(bytes);
    cid = object.cid;
    ({ dealId } = await v.createDeal(buyer, {
      object,
      provider: operatorA,
      replicas: 2,
      durationBlocks: 400,
      price: 4n * UNIT,
    }));
    const deal = await v.waitForDeal(dealId, { timeoutMs: 60_000 });
    expect(deal.status).toBe('active');
    expect(deal.providers.map((r) => r.provider)).toEqual([operatorA, operatorB]);
    // B holds the same bytes, under the same CID, and serves them.
    const fromB = await fetch(`${b.url}/ipfs/${cid}`);
    expect(Buffer.from(await fromB.arrayBuffer()).equals(bytes)).toBe(true);
    expect(await new SvcClient(b.url).ompStorageStatus()).toMatchObject({ objects: 1, usedBytes: bytes.length });
    await waitFor(
      () => v.getDeal(dealId),
      (d) => d.providers.every((r) => r.lastProof !== null),
      30_000,
      'both providers to pass a proof',
    );
  });

  it('any node serves an object it does not hold, byte ranges too, streamed from a provider that does', async () => {
    const whole = await fetch(`${validator.url}/ipfs/${cid}`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    const part = await fetch(`${validator.url}/ipfs/${cid}`, { headers: { range: 'bytes=1048570-1048600' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1048570-1048600/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(1048570, 1048601))).toBe(true);
  });

  it('a provider whose copy is damaged drops it, fetches a good copy from the other replica, and goes on proving', async () => {
    const path = join(a.dataDir, 'objects', 'blobs', cid);
    const damagedAt = await v.blockNumber();
    writeFileSync(path, Buffer.concat([readFileSync(path).subarray(0, 64), Buffer.alloc(bytes.length - 64, 0x5a)]));
    // Its next challenge finds the damage (the proof is checked before it leaves)...
    await waitFor(
      () => a.logs.text(),
      (text) => text.includes(`the copy of ${cid} is damaged`),
      30_000,
      'the damage to be found',
    );
    // ... reads from it go to the good replica meanwhile, and come whole ...
    const fromA = await fetch(`${a.url}/ipfs/${cid}`);
    expect(Buffer.from(await fromA.arrayBuffer()).equals(bytes)).toBe(true);
    // ... then it holds a good copy again and passes its challenges.
    await waitFor(
      () => v.getDeal(dealId),
      (d) => (d.providers[0]!.lastProof ?? 0) > damagedAt + 20,
      30_000,
      'a proof from the repaired copy',
    );
    expect(readFileSync(path).equals(bytes)).toBe(true);
    const deal = await v.getDeal(dealId);
    // A repair slower than a period costs one fault, never the replica.
    expect(deal.providers[0]).toMatchObject({ faulty: false });
    expect(deal.providers[0]!.faults).toBeLessThanOrEqual(1);
    expect(deal.providers[1]!.faults).toBe(0);
  });

  it('stores, deals, reads and shows an object from the svc CLI', async () => {
    const dir = tempDir();
    const file = join(dir, 'cli.pdf');
    const pdf = media.pdf(300_000);
    writeFileSync(file, pdf);
    // The providers offer images only: a document goes nowhere, and says why.
    const refused = await run(SVC, ['--url', a.url, 'omp', 'put', file]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('unsupported_format');
    const image = join(dir, 'cli.png');
    const png = media.png(700_000);
    writeFileSync(image, png);
    const put = await run(SVC, [
      '--url',
      a.url,
      'omp',
      'put',
      image,
      '--replicas',
      '2',
      '--duration',
      '200',
      '--price',
      '0.5',
      '--dev-account',
      '3',
      '--wait',
      '--json',
    ]);
    // Only the line that names what it waits for.
    expect(put.stderr).toMatch(
      /^(transaction|job|deal) \S+ submitted; waiting \(Ctrl-C stops waiting, not the (transaction|job|deal)\)\n$/,
    );
    expect(put.code).toBe(0);
    const stored = JSON.parse(put.stdout) as {
      cid: string;
      deal: { dealId: string; status: string; providers: { provider: string }[] };
    };
    expect(stored.deal.status).toBe('active');
    expect(stored.deal.providers.map((r) => r.provider).sort()).toEqual([operatorA, operatorB].sort());
    const copy = join(dir, 'copy.png');
    const got = await run(SVC, ['--url', validator.url, 'omp', 'get', stored.cid, '-o', copy]);
    expect(got.code).toBe(0);
    expect(readFileSync(copy).equals(png)).toBe(true);
    const shown = await run(SVC, ['--url', validator.url, 'omp', 'deal', stored.deal.dealId]);
    expect(shown.stdout).toMatch(new RegExp(`^deal ${stored.deal.dealId}: active$`, 'm'));
    expect(shown.stdout).toMatch(/^price {5}0\.5 OMC per replica/m);
    // Without --price: the documented default for its size and term, said before the deal is signed.
    const small = join(dir, 'small.png');
    writeFileSync(small, media.png(50_000));
    const cheap = await run(SVC, [
      '--url',
      a.url,
      'omp',
      'put',
      small,
      '--duration',
      '200',
      '--dev-account',
      '3',
      '--json',
    ]);
    expect(cheap.code).toBe(0);
    const made = JSON.parse(cheap.stdout) as { size: number; dealId: string };
    const expected = BigInt(made.size) * 200n * 1_000_000n;
    expect(cheap.stderr).toContain(
      `price ${formatAmountShort(expected)} OMC per replica (the default: 0.001 OMC per MB per 1,000 blocks, at least 0.000001 OMC; --price to choose)`,
    );
    // Acknowledged by node a without --wait: mined, then read from the validator.
    const v = new SvcClient(validator.url);
    await v.waitForTransaction(made.dealId);
    expect((await v.getDeal(made.dealId)).price).toBe(expected.toString());
  });
});

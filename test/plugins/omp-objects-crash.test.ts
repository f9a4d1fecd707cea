import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetKey, SvcClient, UNIT } from '../../sdk/index.js';
import { startNodeProcess, type RunningNode } from '../helpers/cli.js';
import { media } from '../helpers/media.js';
import { tempDir, waitFor } from '../helpers/test-node.js';
import { plainDevnetGenesisFile } from '../helpers/plain-devnet.js';

// A validator that is also a storage provider, as its own process so it can be killed (SIGKILL) in
// the middle of an upload and restarted on its data dir.
const dataDir = tempDir();
let running: RunningNode | undefined;
let client: SvcClient;

async function start(): Promise<void> {
  running = await startNodeProcess([
    '--genesis',
    plainDevnetGenesisFile(),
    '--role',
    'validator',
    '--data-dir',
    dataDir,
    '--bind',
    '127.0.0.1:0',
    '--block-time',
    '200',
  ]);
  client = new SvcClient(running.url);
  await waitFor(
    async () => (await fetch(`${running!.url}/health`)).status,
    (status) => status === 200,
    20_000,
    'the node to be up',
  );
}

const objectsDir = (which: 'blobs' | 'staging'): string[] =>
  existsSync(join(dataDir, 'objects', which)) ? readdirSync(join(dataDir, 'objects', which)) : [];

beforeAll(async () => {
  await start();
  const operator = (await client.nodeInfo()).operator;
  await client.waitForTransaction((await client.transfer(devnetKey('account', 4), operator, 'OGT', 1000n * UNIT)).hash);
  await client.ompRegisterStorageNode({
    operator,
    storage_capacity_gb: 1,
    bond_ogt: 500,
    supported_formats: ['image'],
  });
  await waitFor(
    () => client.ompStorageStatus(),
    (status) => status.status === 'active',
    20_000,
    'the registration to be mined',
  );
}, 60_000);
afterAll(async () => {
  await running?.stop('SIGKILL');
});

describe('objects across a crash', { timeout: 60_000 }, () => {
  it('a node killed mid-upload keeps no part of it, and restarts clean', async () => {
    const bytes = media.png(6 * 1_048_576);
    let sent = 0;
    // Half the body, then nothing more: the node is killed while it waits for the rest.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= bytes.length / 2) return new Promise(() => undefined);
        controller.enqueue(bytes.subarray(sent, sent + 65_536));
        sent += 65_536;
      },
    });
    const upload = fetch(`${running!.url}/omp/objects`, { method: 'PUT', body, duplex: 'half' } as RequestInit).catch(
      (error: unknown) => error,
    );
    await waitFor(
      () => objectsDir('staging').map((file) => statSync(join(dataDir, 'objects', 'staging', file)).size),
      (sizes) => sizes.some((size) => size >= 1_048_576),
      20_000,
      'the upload to reach the disk',
    );
    await running!.stop('SIGKILL');
    expect(await upload).toBeInstanceOf(Error);
    // As if it had died between moving a finished upload into place and recording it: a blob never acknowledged.
    writeFileSync(join(dataDir, 'objects', 'blobs', 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku'), '');
    await start();
    expect(objectsDir('staging')).toEqual([]);
    expect(objectsDir('blobs')).toEqual([]);
    expect(await client.ompStorageStatus()).toMatchObject({ status: 'active', objects: 0, usedBytes: 0 });
  });

  it('an object acknowledged with 201 survives a SIGKILL right after', async () => {
    const bytes = media.png(3 * 1_048_576 + 17);
    const response = await fetch(`${running!.url}/omp/objects`, { method: 'PUT', body: bytes });
    expect(response.status).toBe(201);
    const { cid } = (await response.json()) as { cid: string };
    await running!.stop('SIGKILL');
    await start();
    expect(await client.ompStorageStatus()).toMatchObject({ objects: 1, usedBytes: bytes.length });
    const served = await fetch(`${running!.url}/ipfs/${cid}`);
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
  });
});

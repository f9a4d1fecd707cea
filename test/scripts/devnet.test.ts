import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SvcClient } from '../../sdk/index.js';
import { tempDir, waitFor } from '../helpers/test-node.js';

const DEVNET = join(import.meta.dirname, '../../dist/scripts/devnet.js');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('scripts/devnet', () => {
  it('starts a validator, an archive compute node and a full node that follow it, prints their URLs, and stops all on Ctrl-C', async () => {
    const dir = tempDir('svc-devnet-');
    dirs.push(dir);
    const child = spawn(process.execPath, [DEVNET, '--dir', dir, '--block-time', '200'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await waitFor(() => out, (text) => text.includes('devnet up'), 30_000, 'the devnet to come up');
      const urls = Object.fromEntries([...out.matchAll(/^\s+(validator|compute|full)\s+rpc (http:\/\/\S+)/gm)].map((m) => [m[1], m[2]]));
      expect(Object.keys(urls).sort()).toEqual(['compute', 'full', 'validator']);
      const [validator, compute, full] = [urls.validator!, urls.compute!, urls.full!].map((url) => new SvcClient(url));
      expect((await compute!.nodeInfo()).role).toBe('compute');
      const target = (await validator!.blockNumber()) + 2;
      await waitFor(() => Promise.all([compute!.blockNumber(), full!.blockNumber()]), (heights) => heights.every((h) => h >= target), 15_000, 'followers to follow');
      expect((await full!.peers()).map((p) => p.peerId)).toContain((await validator!.nodeInfo()).peerId);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    // Every node is gone with it: their RPC ports no longer answer.
    for (const match of out.matchAll(/rpc (http:\/\/\S+)/g)) await expect(fetch(`${match[1]}/health`)).rejects.toThrow();
  });
});

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SvcClient } from '../../sdk/index.js';
import { tempDir, waitFor } from '../helpers/test-node.js';
import { run } from '../helpers/cli.js';

const DEVNET = join(import.meta.dirname, '../../dist/scripts/devnet.js');

describe('scripts/devnet', () => {
  it('starts a validator, an archive compute node and a full node that follow it; one Ctrl-C to the process group stops each node cleanly, once', async () => {
    const dir = tempDir('svc-devnet-');
    // In a process group of its own, as a terminal runs a foreground job: Ctrl-C signals the whole group.
    const child = spawn(process.execPath, [DEVNET, '--dir', dir, '--block-time', '200'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
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
      process.kill(-child.pid!, 'SIGINT');
    }
    expect(await exited).toBe(0);
    for (const name of ['validator', 'compute', 'full']) expect(out).toContain(`[${name}] stopped cleanly`);
    expect(out).not.toContain('second SIGINT');
    // Every node is gone with it: their RPC ports no longer answer.
    for (const match of out.matchAll(/rpc (http:\/\/\S+)/g)) await expect(fetch(`${match[1]}/health`)).rejects.toThrow();
  });

  it('answers a mistyped flag with a usage line, not a stack trace', async () => {
    const result = await run(DEVNET, ['--block-tme', '200']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^devnet: Unknown option '--block-tme'.*\nusage: npm run devnet -- \[--dir <path>\] \[--fresh\] \[--block-time <ms>\]\n$/);
    expect((await run(DEVNET, ['--block-time', 'soon'])).stderr).toContain('devnet: --block-time must be a whole number of ms, not "soon"');
  });
});

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SvcClient } from '../../sdk/index.js';
import { tempDir, waitFor } from '../helpers/test-node.js';

const DEVNET = join(import.meta.dirname, '../../dist/scripts/devnet.js');

describe('scripts/devnet', () => {
  it('starts a validator, an archive compute node and a full node that follow it; one Ctrl-C to the process group stops each node cleanly, once', async () => {
    const dir = tempDir('svc-devnet-');
    // In a process group of its own, as a terminal runs a foreground job: Ctrl-C signals the whole group.
    const child = spawn(process.execPath, [DEVNET, '--dir', dir, '--block-time', '200'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await waitFor(
        () => out,
        (text) => text.includes('devnet up'),
        30_000,
        'the devnet to come up',
      );
      expect(out).toContain('a block every 200 ms');
      const urls = Object.fromEntries(
        [...out.matchAll(/^\s+(validator|compute|full)\s+rpc (http:\/\/\S+)/gm)].map((m) => [m[1], m[2]]),
      );
      expect(Object.keys(urls).sort()).toEqual(['compute', 'full', 'validator']);
      const [validator, compute, full] = [urls.validator!, urls.compute!, urls.full!].map((url) => new SvcClient(url));
      expect((await compute!.nodeInfo()).role).toBe('compute');
      const target = (await validator!.blockNumber()) + 2;
      await waitFor(
        () => Promise.all([compute!.blockNumber(), full!.blockNumber()]),
        (heights) => heights.every((h) => h >= target),
        15_000,
        'followers to follow',
      );
      expect((await full!.peers()).map((p) => p.peerId)).toContain((await validator!.nodeInfo()).peerId);
      // Both the validator (from the genesis) and the compute node (registered by the script) run jobs.
      expect(out).toMatch(/\[compute\] registered as a compute provider/);
      expect((await compute!.oonNodeStatus()).status).toBe('active');
      expect((await validator!.oonNodeStatus()).status).toBe('active');
      expect((await validator!.oonListProviders()).map((p) => p.operator).sort()).toEqual(
        [(await validator!.oonNodeStatus()).operator, (await compute!.oonNodeStatus()).operator].sort(),
      );
    } finally {
      process.kill(-child.pid!, 'SIGINT');
    }
    expect(await exited).toBe(0);
    for (const name of ['validator', 'compute', 'full']) expect(out).toContain(`[${name}] stopped cleanly`);
    expect(out).not.toContain('second SIGINT');
    // Every node is gone with it: their RPC ports no longer answer.
    for (const match of out.matchAll(/rpc (http:\/\/\S+)/g))
      await expect(fetch(`${match[1]}/health`)).rejects.toThrow();
  });

  // Its waits (up to 60 + 30 + 10 s) are its bounds: six node processes coming up on a busy machine.
  it('--validators 4: three more validator nodes stake by transaction and, from the next epoch, the four make blocks by consensus', {
    timeout: 150_000,
  }, async () => {
    const dir = tempDir('svc-devnet-');
    const child = spawn(process.execPath, [DEVNET, '--dir', dir, '--block-time', '300', '--validators', '4'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await waitFor(
        () => out,
        (text) => text.includes('devnet up'),
        60_000,
        'the devnet of four validators to come up',
      );
      expect(out).toMatch(/\[validator-3\] staked 20 OGT/);
      const full = new SvcClient(/^\s+full\s+rpc (http:\/\/\S+)/m.exec(out)![1]!);
      const set = await full.validators();
      expect(set.validators).toHaveLength(4);
      // Blocks after the change come from several of them, each final by a certificate of at least 3 of the 4.
      const from = set.height + 1;
      await waitFor(
        () => full.blockNumber(),
        (h) => h >= from + 8,
        30_000,
        'blocks by consensus',
      );
      const proposers = new Set<string>();
      for (let height = from; height < from + 8; height++) {
        proposers.add((await full.getBlockByNumber(height)).proposer);
        expect((await full.getCommit(height)).signatures.length).toBeGreaterThanOrEqual(3);
      }
      expect(proposers.size).toBeGreaterThan(1);
      // Each node's whole log is kept in the devnet dir; one killed is reported with its signal.
      const lines = readFileSync(join(dir, 'validator-3.log'), 'utf8').split('\n').filter(Boolean);
      expect(lines.some((line) => line.includes('"msg":"node started"'))).toBe(true);
      process.kill((JSON.parse(lines[0]!) as { pid: number }).pid, 'SIGKILL');
      await waitFor(
        () => out,
        (text) => text.includes('[validator-3] killed by SIGKILL; the others keep running'),
        10_000,
        'the kill to be reported',
      );
    } finally {
      process.kill(-child.pid!, 'SIGINT');
    }
    // Not every node stopped cleanly (one was killed): the devnet says so in its exit code.
    expect(await exited).toBe(1);
    for (const name of ['validator', 'validator-1', 'validator-2', 'compute', 'full'])
      expect(out).toContain(`[${name}] stopped cleanly`);
    expect(out).toContain('[validator-3] killed by SIGKILL');
  });
});

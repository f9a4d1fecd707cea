import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.js';
import { SVC_NODE } from '../helpers/cli.js';
import { rpc, tempDir, waitFor } from '../helpers/test-node.js';

describe('logs', () => {
  it('a node whose stdout reader stops reading keeps going (logs are written asynchronously), and every line is there once the reader reads again', async () => {
    const port = await freePort();
    // Debug lines for every 10 ms block: far more than a pipe holds (64 KiB) while nobody reads.
    const child = spawn(
      process.execPath,
      [
        SVC_NODE,
        'start',
        '--role',
        'validator',
        '--storage',
        'memory',
        '--data-dir',
        tempDir(),
        '--bind',
        `127.0.0.1:${port}`,
        '--p2p-host',
        '127.0.0.1',
        '--p2p-port',
        '0',
        '--block-time',
        '10',
        '--log-level',
        'debug',
        '--log-format',
        'json',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      child.stdout.pause();
      const url = `http://127.0.0.1:${port}`;
      const height = async (): Promise<number> =>
        (await rpc<number>(url, 'svc_blockNumber').catch(() => ({ body: { result: 0 } }))).body.result ?? 0;
      // A synchronous logger would block at the first full pipe, some 300 blocks in.
      await waitFor(height, (h) => h >= 1_500, 60_000, 'blocks made while nobody reads the logs');
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stdout.resume();
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      const lines = out.split('\n').filter(Boolean);
      expect(lines.some((line) => line.includes('"msg":"produced block 1000:'))).toBe(true);
      expect(lines.at(-1)).toContain('"msg":"node stopped"');
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);
});

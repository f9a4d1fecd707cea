import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { run, SVC, SVC_NODE } from '../helpers/cli.js';
import { tempDir } from '../helpers/test-node.js';
import { spawn } from 'node:child_process';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('guardrails from the command line', () => {
  it('refuses to start with --guardrails true and no token configured', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const result = await run(SVC_NODE, ['start', '--data-dir', dataDir, '--bind', '127.0.0.1:0', '--p2p-host', '127.0.0.1', '--p2p-port', '0', '--guardrails', 'true', '--log-level', 'silent'], { SVC_RPC_TOKENS: '' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no token is configured');
  });

  it('svc sends SVC_RPC_TOKEN with a fresh nonce per request; without it the node answers 401', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const token = 'cli-token-0123456789abcdef';
    const node = await new Promise<{ url: string; stop: () => Promise<number | null> }>((resolve, reject) => {
      const child = spawn(process.execPath, [SVC_NODE, 'start', '--log-format', 'json', '--role', 'validator', '--data-dir', dataDir, '--bind', '127.0.0.1:0', '--p2p-host', '127.0.0.1', '--p2p-port', '0', '--guardrails', 'true', '--block-time', '100'], {
        env: { ...process.env, SVC_RPC_TOKENS: token },
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const match = /rpc listening on (http:\/\/[0-9.:]+)/.exec(out);
        if (match) resolve({ url: match[1]!, stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGINT'))) });
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    try {
      for (let i = 0; i < 3; i++) {
        const ok = await run(SVC, ['block-number', '--url', node.url], { SVC_RPC_TOKEN: token });
        expect(ok.code).toBe(0);
      }
      const refused = await run(SVC, ['block-number', '--url', node.url], { SVC_RPC_TOKEN: '' });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('unauthorized (-32001)');
    } finally {
      expect(await node.stop()).toBe(0);
    }
  });
});

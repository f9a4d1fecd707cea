import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { run, SVC, SVC_NODE } from '../helpers/cli.js';
import { tempDir } from '../helpers/test-node.js';
import { NodeProcess } from '../../scripts/node-process.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('guardrails from the command line', () => {
  it('refuses to start with --guardrails true and no token configured', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const result = await run(
      SVC_NODE,
      [
        'start',
        '--data-dir',
        dataDir,
        '--bind',
        '127.0.0.1:0',
        '--p2p-host',
        '127.0.0.1',
        '--p2p-port',
        '0',
        '--guardrails',
        'true',
        '--log-level',
        'silent',
      ],
      { SVC_RPC_TOKENS: '' },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no token is configured');
  });

  it('svc sends SVC_RPC_TOKEN with a fresh nonce per request; without it the node answers 401', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const token = 'cli-token-0123456789abcdef';
    const node = await NodeProcess.start({
      name: 'guarded',
      dataDir,
      args: ['--role', 'validator', '--guardrails', 'true', '--block-time', '100'],
      env: { SVC_RPC_TOKENS: token },
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
      expect(await node.stop('SIGINT')).toBe(0);
    }
    // A node and four CLI processes: the default 30 s is too tight beside a loaded suite.
  }, 90_000);
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bash, walkthrough } from '../helpers/walkthrough.js';
import { run, startNodeProcess } from '../helpers/cli.js';
import { tempDir, waitFor } from '../helpers/test-node.js';

// A clone, the locked dependencies from the npm registry and a build: a minute or two.
const INSTALL_TIMEOUT_MS = 600_000;

describe('docs/deploy.md: installing on a host', () => {
  it(
    "its lines install svc-node where the systemd unit's ExecStart runs it, and that command starts a node of a network `init` made",
    async () => {
      const opt = join(tempDir(), 'opt');
      // The repository is this checkout; /opt is a directory of the test's own.
      const script = walkthrough('docs/deploy.md', 'install')
        .replace(/^repository=.*$/m, `repository=${process.cwd()}`)
        .replaceAll('/opt/svc-node', join(opt, 'svc-node'));
      const installed = await bash(script);
      expect(installed.code, installed.stderr).toBe(0);
      expect(installed.stdout).toMatch(/^svc-node\/\d+\.\d+\.\d+ /m);

      const unit = readFileSync('deploy/svc-node@.service', 'utf8');
      const [, nodeBinary, entry, args] = /^ExecStart=(\S+) (\S+) (.*)$/m.exec(unit)!;
      expect(nodeBinary).toBe('/usr/bin/node');
      const net = tempDir();
      const made = await run(join(opt, 'svc-node/dist/bin/svc-node.js'), ['init', '--validators', '1', '--out', net]);
      expect(made.code, made.stderr).toBe(0);
      // The unit's own command, for instance validator0, with the test's directories.
      const argv = args!.replace('/var/lib/svc-node/%i.json', join(net, 'validator0.json')).split(' ');
      const node = await startNodeProcess(
        [...argv.slice(1), '--bind', '127.0.0.1:0', '--p2p-port', '0'],
        entry!.replace('/opt', opt),
      );
      try {
        // A validator just started reports 503 until its first block: wait for it.
        await waitFor(
          async () => (await fetch(`${node.url}/health`)).status,
          (status) => status === 200,
          30_000,
          'the installed node to report healthy',
        );
      } finally {
        expect(await node.stop('SIGTERM')).toBe(0);
      }
    },
    INSTALL_TIMEOUT_MS,
  );
});

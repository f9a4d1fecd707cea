import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { replayDockerfile } from '../helpers/dockerfile-replay.js';
import { tempDir, waitFor } from '../helpers/test-node.js';

// Its steps install the locked dependencies from the npm registry and build the package: minutes.
const REPLAY_TIMEOUT_MS = 600_000;

describe('deploy/Dockerfile, replayed step by step', () => {
  it(
    'builds from a clean context, and the image it describes starts a devnet validator that answers /health and its health check',
    async () => {
      const out = tempDir();
      const stages = replayDockerfile('deploy/Dockerfile', process.cwd(), out);
      const image = stages.at(-1)!;
      // Only the machine's setup is left out: the user and its data dir.
      expect(image.skipped.join(' && ')).toMatch(
        /^groupadd .* && useradd .* && mkdir -p \/data && chown svc:svc \/data$/,
      );
      expect(image.user).toBe('svc');
      const workdir = join(image.root, image.workdir);
      // Where docs/deploy.md installs it on a host, so the systemd unit runs the same paths.
      expect(image.workdir).toBe('/opt/svc-node');
      // The run stage holds what runs, without the toolchain.
      expect(existsSync(join(workdir, 'node_modules/vitest'))).toBe(false);
      expect(existsSync(join(workdir, 'node_modules/solc'))).toBe(false);
      expect(existsSync(join(workdir, 'node_modules/@nxtedition/rocksdb'))).toBe(true);

      const [node, entry] = image.entrypoint!;
      expect(node).toBe('node');
      // The base image's Node line: a current LTS one, not the machine's.
      expect(image.image).toMatch(/^node:(24|26)-/);
      expect(execFileSync(image.node, ['--version'], { encoding: 'utf8' })).toMatch(
        new RegExp(`^v${image.image.slice(5, 7)}\\.`),
      );
      const data = tempDir();
      // CMD as the image runs it, with its volume here and ports the test picks.
      const cmd = image.cmd!.map((arg) => (arg === '/data' ? data : arg === '0.0.0.0:8545' ? '127.0.0.1:0' : arg));
      const child = spawn(image.node, [entry!, ...cmd, '--p2p-port', '0'], {
        cwd: workdir,
        env: { ...process.env, ...image.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        const url = await new Promise<string>((resolve, reject) => {
          const lines = createInterface({ input: child.stdout! });
          lines.on('line', (line) => {
            const listening = /rpc listening on (http:\/\/[\d.]+:\d+)/.exec(line);
            if (listening) resolve(listening[1]!);
          });
          child.once('exit', (code) => reject(new Error(`the image's node exited (${code}) before listening`)));
        });
        // A validator just started reports 503 until its first block: wait for it, as the HEALTHCHECK's start period does.
        await waitFor(
          async () => (await fetch(`${url}/health`)).status,
          (status) => status === 200,
          30_000,
          "the image's node to report healthy",
        );
        const [checkNode, ...check] = image.healthcheck!;
        expect(checkNode).toBe('node');
        const healthy = spawnSync(image.node, [join(workdir, check[0]!), ...check.slice(1)], {
          env: { ...process.env, SVC_HEALTH_URL: `${url}/health` },
          encoding: 'utf8',
        });
        expect(healthy.status, healthy.stdout + healthy.stderr).toBe(0);
      } finally {
        const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
      }
    },
    REPLAY_TIMEOUT_MS,
  );
});

import { readFileSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startNodeProcess, type RunningNode } from './helpers/cli.js';
import { tempDir, waitFor } from './helpers/test-node.js';
import { bash, walkthrough as walkthroughBlock, withoutWaits } from './helpers/walkthrough.js';

const readme = readFileSync('README.md', 'utf8');
const walkthrough = (name: string): string => walkthroughBlock('README.md', name);

const nodes: RunningNode[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(nodes.map((node) => node.stop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

// Several node processes and CLI calls one after another: about 20 s on a quiet machine, more than twice that on a busy one.
describe('README walkthrough', { timeout: 120_000 }, () => {
  it('registers a compute and a storage provider on a validator + archive compute devnet, runs a compute job and stores an image there, verbatim but for the ports and file paths', async () => {
    const start = readme.slice(readme.indexOf('## Compute and storage providers'));
    expect(start).toContain('svc-node start --role compute --receipt-archive true --data-dir');
    const [validatorDir, computeDir] = [tempDir(), tempDir()];
    dirs.push(validatorDir, computeDir);
    const validator = await startNodeProcess([
      '--role',
      'validator',
      '--data-dir',
      validatorDir,
      '--bind',
      '127.0.0.1:0',
      '--block-time',
      '200',
    ]);
    nodes.push(validator);
    const listening = /p2p listening on (\/ip4\/127\.0\.0\.1\/tcp\/\d+\/p2p\/\w+)/;
    const p2p = listening.exec(
      await waitFor(
        () => validator.output(),
        (out) => listening.test(out),
        10_000,
        'the p2p line',
      ),
    )![1]!;
    const compute = await startNodeProcess([
      '--role',
      'compute',
      '--receipt-archive',
      'true',
      '--data-dir',
      computeDir,
      '--bind',
      '127.0.0.1:0',
      '--bootstrap-peers',
      p2p,
    ]);
    nodes.push(compute);
    await waitFor(
      async () => (await fetch(`${compute.url}/health`)).status,
      (status) => status === 200,
      15_000,
      'the compute node to sync',
    );

    const script = walkthrough('register')
      .replaceAll('http://127.0.0.1:8546', compute.url)
      .replaceAll('http://127.0.0.1:8545', validator.url);
    const result = await bash(script);
    expect(withoutWaits(result.stderr)).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^compute: active$/m);
    expect(result.stdout).toMatch(/^storage: active$/m);
    expect(result.stdout).toMatch(/^svc1[0-9a-f]{40} {2}1000 OGT {2}wasm,evm {2}jobs 4 {2}peer 12D3Koo/m);
    expect(result.stdout).toMatch(/^svc1[0-9a-f]{40} {2}500 OGT {2}250 GB {2}image,document/m);
    expect(result.stdout).toMatch(/OGT +500\.000000000000000000/);
    expect(result.stdout).toMatch(/bonded OGT 1500\.000000000000000000 \(compute 1000, storage 500\)/);

    const wasmDir = tempDir();
    dirs.push(wasmDir);
    const jobScript = walkthrough('job')
      .replaceAll('upper.wasm', `${wasmDir}/upper.wasm`)
      .replaceAll('http://127.0.0.1:8546', compute.url)
      .replaceAll('http://127.0.0.1:8545', validator.url);
    const job = await bash(jobScript);
    // npx may warn about the machine's own npm config; nothing else may reach stderr.
    expect(withoutWaits(job.stderr.replace(/^npm warn .*\n/gm, ''))).toBe('');
    expect(job.code).toBe(0);
    expect(job.stdout).toMatch(/^exit:0, \d+ gas, 10 bytes of output$/m);
    expect(job.stdout).toMatch(/^job 0x[0-9a-f]{64}: finalized$/m);
    expect(job.stdout.endsWith('HELLO, OON')).toBe(true);

    const objectScript = walkthrough('object')
      .replaceAll('gradient-copy.png', `${wasmDir}/gradient-copy.png`)
      .replaceAll('http://127.0.0.1:8546', compute.url);
    const object = await bash(objectScript);
    expect(withoutWaits(object.stderr)).toBe('');
    expect(object.code).toBe(0);
    expect(object.stdout).toContain(readme.match(/The upload answers `(\{[^`]*\})`/)![1]!);
    expect(object.stdout).toMatch(/^200 image\/png 461$/m);
    expect(readFileSync(`${wasmDir}/gradient-copy.png`).equals(readFileSync('examples/objects/gradient.png'))).toBe(
      true,
    );
  });
});

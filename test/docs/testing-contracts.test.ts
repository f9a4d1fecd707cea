import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNodeProcess, type RunningNode } from '../helpers/cli.js';
import { foundryBinary } from '../helpers/foundry.js';
import { tempDir } from '../helpers/test-node.js';
import { join } from 'node:path';
import { bash, walkthrough } from '../helpers/walkthrough.js';

describe('docs/testing-contracts.md', () => {
  let node: RunningNode;
  beforeAll(async () => {
    node = await startNodeProcess([
      '--dev',
      '--storage',
      'memory',
      '--data-dir',
      tempDir('svc-dev-docs-'),
      '--bind',
      '127.0.0.1:0',
      '--p2p-port',
      '0',
    ]);
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('its cast lines run against `svc-node start --dev` as written (but for the port)', async () => {
    const script = walkthrough('docs/testing-contracts.md', 'cast').replaceAll('http://127.0.0.1:8545', node.url);
    const result = await bash(`cast() { "${foundryBinary('cast')}" "$@"; }\n${script}`);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^1000000000000000000$/m);
    const lines = result.stdout.trim().split('\n');
    expect(lines.slice(-3)).toEqual([
      '0x00000000000000000000000000000000000000000000000000000000000000ff',
      'true',
      '0',
    ]);
  }, 60_000);
  it('its forge script lines build with solc-js and broadcast to `svc-node start --dev` as written (but for the port and the install)', async () => {
    // `npm i solc` is this repository's own dependency here: the line is left out and solc-js found through NODE_PATH.
    const script = walkthrough('docs/testing-contracts.md', 'forge')
      .replaceAll('http://127.0.0.1:8545', node.url)
      .replace(/^npm i solc@[^\n]*\n/m, '');
    const tools = `export NODE_PATH="${join(process.cwd(), 'node_modules')}"\nforge() { "${foundryBinary('forge')}" "$@"; }\ncast() { "${foundryBinary('cast')}" "$@"; }\ncd "${tempDir('svc-forge-')}"\n`;
    const result = await bash(`${tools}${script}`);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('1');
  }, 120_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { bash, walkthrough } from '../helpers/walkthrough.js';
import { startNodeProcess, type RunningNode } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dirs.js';
import { foundryBinary } from '../helpers/foundry.js';

describe('the contracts walkthrough', () => {
  let node: RunningNode;
  beforeAll(async () => {
    node = await startNodeProcess([
      '--role',
      'validator',
      '--network',
      'devnet',
      '--data-dir',
      tempDir(),
      '--bind',
      '127.0.0.1:0',
      '--block-time',
      '250',
    ]);
  });
  afterAll(async () => {
    await node?.stop();
  });

  it("deploys, sends, calls and finds the log with solcjs and cast, verbatim but for the node's URL", async () => {
    const work = tempDir();
    // The reader's `cast` and `solcjs`: the binaries the npm packages ship.
    const tools = `cast() { "${foundryBinary('cast')}" "$@"; }\nsolcjs() { node "${resolve('node_modules/solc/solc.js')}" "$@"; }\ncd "${work}"\n`;
    const script = walkthrough('docs/contracts.md', 'foundry').replaceAll('http://127.0.0.1:8545', node.url);
    const result = await bash(tools + script);
    expect(result.stderr.replace(/^.*nightly.*\n/gim, ''), result.stdout).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe('7566947');
    expect(lines[1]).toBe('10000.000000000000000000');
    expect(lines[2]).toBe('1');
    expect(result.stdout).toMatch(/transactionHash: 0x[0-9a-f]{64}/);
    expect(result.stdout).toContain('0x000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNodeProcess, type RunningNode } from '../../helpers/cli.js';
import { rpc, tempDir, waitFor } from '../../helpers/test-node.js';

const LOADED = 'EVM engine loaded';
const loads = (output: string): number => output.split('\n').filter((line) => line.includes(LOADED)).length;

// A process of its own: in a test worker another file's node may have loaded the engine already.
describe('the EVM engine', () => {
  let node: RunningNode;
  beforeAll(async () => {
    node = await startNodeProcess([
      '--role',
      'validator',
      '--storage',
      'memory',
      '--data-dir',
      tempDir('svc-evm-engine-'),
      '--bind',
      '127.0.0.1:0',
      '--p2p-port',
      '0',
      '--block-time',
      '200',
    ]);
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('loads at the first EVM run, not at start nor for block views, and once', async () => {
    await waitFor(
      async () => (await rpc<string>(node.url, 'eth_blockNumber')).body.result,
      (height) => height !== undefined && BigInt(height) >= 2n,
      15_000,
      'two blocks',
    );
    const block = await rpc<{ logsBloom: string }>(node.url, 'eth_getBlockByNumber', ['latest', false]);
    expect(block.body.result?.logsBloom).toMatch(/^0x0{512}$/);
    expect(loads(node.output())).toBe(0);

    // SHA-256 of nothing through the precompile at 0x02: an EVM run.
    const call = { to: `0x${'00'.repeat(19)}02`, data: '0x' };
    const first = await rpc<string>(node.url, 'eth_call', [call, 'latest']);
    expect(first.body.result).toBe('0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    await waitFor(
      () => loads(node.output()),
      (n) => n === 1,
      5_000,
      'the load logged',
    );
    const second = await rpc<string>(node.url, 'eth_call', [call, 'latest']);
    expect(second.body.result).toBe(first.body.result);
    expect(loads(node.output())).toBe(1);
    expect(node.output()).not.toMatch(/analyses contract code on every call|cannot pause/);
  });
});

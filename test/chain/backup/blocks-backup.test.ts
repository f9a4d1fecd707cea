import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Chain } from '../../../chain/chain.js';
import { BLOCK_ARCHIVE_MAGIC } from '../../../chain/backup/block-archive.js';
import { devnetKey, SvcClient, UNIT } from '../../../sdk/index.js';
import { run, SVC_NODE } from '../../helpers/cli.js';
import { startTestNode, tempDir, waitFor, type TestNode } from '../../helpers/test-node.js';
import { contracts } from '../../helpers/contracts.js';
import { plainDevnetGenesisFile } from '../../helpers/plain-devnet.js';

// A chain made by a validator (transfers and a contract), backed up with export-blocks and restored
// into empty data dirs with import-blocks, which executes every block again.
const source = tempDir();
const work = tempDir();
const file = join(work, 'blocks.svc');
let head: { height: number; hash: string; stateRoot: string };

const chainOf = (node: TestNode): Chain => node.node.service<Chain>('chain');

/** The data dir's head, opened by a node with no peers. */
async function headOf(dataDir: string): Promise<{ height: number; hash: string; stateRoot: string }> {
  const node = await startTestNode({ dataDir, role: 'full' });
  try {
    const { height, hash, stateRoot } = chainOf(node).head;
    return { height, hash, stateRoot };
  } finally {
    await node.stop();
  }
}

/** Where block record `height` starts in the archive (records of 4-byte length + CBOR after the magic line). */
function recordOffset(bytes: Buffer, height: number, from = 1): number {
  let offset = BLOCK_ARCHIVE_MAGIC.length;
  offset += 4 + bytes.readUInt32BE(offset); // the header
  for (let h = from; h < height; h++) offset += 4 + bytes.readUInt32BE(offset);
  return offset;
}

beforeAll(async () => {
  const node = await startTestNode({ dataDir: source, validator: { blockTime: 30 } });
  try {
    const client = new SvcClient(node.url);
    for (let i = 0; i < 5; i++)
      await client.transfer(devnetKey('account', 1), devnetKey('account', 2).address, 'OMC', BigInt(i + 1) * UNIT);
    const token = contracts().Token as unknown as { abi: never; bytecode: `0x${string}` };
    const deployed = await client.deployContract(devnetKey('account', 3), { ...token, args: [1_000n] });
    await client.waitForTransaction(deployed.txHash, { pollMs: 20 });
    await waitFor(
      () => chainOf(node).head.height,
      (h) => h >= 40,
      15_000,
      'height 40',
    );
  } finally {
    await node.stop();
  }
  head = await headOf(source);
}, 60_000);

describe('export-blocks and import-blocks', () => {
  it('an empty data dir that imports the export has the same head hash and state root, every block executed again', async () => {
    const exported = await run(SVC_NODE, ['export-blocks', '--data-dir', source, '--out', file]);
    expect(exported.stderr).toBe('');
    expect(exported.stdout).toBe(`wrote blocks 1 to ${head.height} (${head.height}) of ${source} to ${file}\n`);
    const restored = join(work, 'restored');
    const imported = await run(SVC_NODE, ['import-blocks', file, '--data-dir', restored]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(
      `imported ${head.height} blocks from ${file}: the head of ${restored} is ${head.height} (was 0)`,
    );
    expect(await headOf(restored)).toEqual(head);
    // Again into the same data dir: nothing left to do, the blocks it holds match.
    const again = await run(SVC_NODE, ['import-blocks', file, '--data-dir', restored]);
    expect(again.stdout).toContain(`imported 0 blocks from ${file}: the head of ${restored} is ${head.height}`);
  });

  it('a range, then the rest: the second import continues where the first stopped', async () => {
    const first = join(work, 'first.svc');
    const rest = join(work, 'rest.svc');
    expect((await run(SVC_NODE, ['export-blocks', '--data-dir', source, '--to', '20', '--out', first])).code).toBe(0);
    expect((await run(SVC_NODE, ['export-blocks', '--data-dir', source, '--from', '21', '--out', rest])).code).toBe(0);
    const dir = join(work, 'in-two');
    const early = await run(SVC_NODE, ['import-blocks', rest, '--data-dir', dir]);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain(
      `starts at block 21, and this data dir's head is 0: import the blocks before it first`,
    );
    expect((await run(SVC_NODE, ['import-blocks', first, '--data-dir', dir])).code).toBe(0);
    expect((await run(SVC_NODE, ['import-blocks', rest, '--data-dir', dir])).code).toBe(0);
    expect(await headOf(dir)).toEqual(head);
  });

  it('a corrupted block stops the import at that block, with the blocks before it kept; a cut file says so', async () => {
    const bad = join(work, 'bad.svc');
    copyFileSync(file, bad);
    const bytes = readFileSync(bad);
    // A byte in the middle of block 25's record: its header no longer hashes to what it says.
    const at = recordOffset(bytes, 25);
    const length = bytes.readUInt32BE(at);
    const target = at + 4 + Math.floor(length / 2);
    bytes[target] = bytes[target]! ^ 0x01;
    writeFileSync(bad, bytes);
    const dir = join(work, 'corrupted');
    const result = await run(SVC_NODE, ['import-blocks', bad, '--data-dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^svc-node: (block 25 does not verify \(|block record 25 )/);
    expect(result.stderr).toContain('the data dir holds the blocks up to 24');
    expect((await headOf(dir)).height).toBe(24);
    const cut = join(work, 'cut.svc');
    writeFileSync(cut, readFileSync(file).subarray(0, recordOffset(readFileSync(file), 30) + 10));
    const short = await run(SVC_NODE, ['import-blocks', cut, '--data-dir', join(work, 'cut')]);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('ends inside the record after block record 29: the file is cut short');
    expect(short.stderr).toContain('the data dir holds the blocks up to 29');
  });

  it('refuses what it cannot do with one clear line: no chain, a range outside it, a file of another network, a node running', async () => {
    const none = await run(SVC_NODE, ['export-blocks', '--data-dir', join(work, 'nothing'), '--out', join(work, 'x')]);
    expect(none.stderr).toBe(`svc-node: --data-dir ${join(work, 'nothing')}: holds no chain\n`);
    const beyond = await run(SVC_NODE, [
      'export-blocks',
      '--data-dir',
      source,
      '--to',
      '9999',
      '--out',
      join(work, 'y'),
    ]);
    expect(beyond.stderr).toBe(`svc-node: --to 9999: expected 1 to ${head.height} (the head)\n`);
    const exists = await run(SVC_NODE, ['export-blocks', '--data-dir', source, '--out', file]);
    expect(exists.stderr).toBe(`svc-node: --out ${file}: the file exists; name a new one\n`);
    const noOut = await run(SVC_NODE, ['export-blocks', '--data-dir', source]);
    expect(noOut.code).toBe(2);
    // The devnet without its built-in providers: another genesis.
    const other = await run(SVC_NODE, [
      'import-blocks',
      file,
      '--data-dir',
      join(work, 'other'),
      '--genesis',
      plainDevnetGenesisFile(),
    ]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(
      /^svc-node: .* holds blocks of chain svc-devnet-1 with genesis 0x[0-9a-f]{64}; this data dir's network \(svc-devnet-1\) has genesis 0x[0-9a-f]{64}: give the --network and --genesis the blocks were made on\n$/,
    );
    const running = await startTestNode({ dataDir: source, role: 'full' });
    try {
      const locked = await run(SVC_NODE, ['export-blocks', '--data-dir', source, '--out', join(work, 'z')]);
      expect(locked.code).toBe(1);
      expect(locked.stderr).toMatch(/^svc-node: --data-dir .*: in use by another svc-node \(pid \d+\)/);
    } finally {
      await running.stop();
    }
  });
});

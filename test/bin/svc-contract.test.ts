import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, SVC } from '../helpers/cli.js';
import { startTestNode, type TestNode } from '../helpers/test-node.js';
import { tempDir } from '../helpers/temp-dirs.js';
import { contracts } from '../helpers/contracts.js';
import { devnetKey } from '../../sdk/index.js';
import { bash, walkthrough, withoutWaits } from '../helpers/walkthrough.js';

const writeTempJson = (value: unknown): string => {
  const path = join(tempDir(), 'abi.json');
  writeFileSync(path, JSON.stringify(value));
  return path;
};

describe('svc contract deploy|call|send|logs|abi', () => {
  let node: TestNode;
  let artifact: string;
  let address: string;
  const svc = (...args: string[]) => run(SVC, [...args, '--url', node.url]);

  beforeAll(async () => {
    node = await startTestNode({ validator: { blockTime: 50 } });
    artifact = join(tempDir(), 'Token.json');
    writeFileSync(artifact, JSON.stringify(contracts().Token));
  });
  afterAll(async () => {
    await node?.stop();
  });

  it("docs/contracts.md's svc contract lines run as written (but for the node's URL and the artifact's path)", async () => {
    const script = walkthrough('docs/contracts.md', 'svc-contract').replaceAll('Token.json', artifact);
    const result = await bash(`export SVC_RPC_URL=${node.url}\n${script}`);
    expect(withoutWaits(result.stderr)).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^1000\n1000\n/);
    expect(result.stdout).toMatch(/Transfer\(0x[0-9a-fA-F]{40}, 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, 250\)/);
  });

  it('deploys a compiler artifact with constructor arguments and --wait, printing the transaction first and the contract after', async () => {
    const deployed = await svc(
      'contract',
      'deploy',
      artifact,
      '--args',
      '["1000"]',
      '--dev-account',
      '0',
      '--wait',
      '--json',
    );
    // Only the line that names what it waits for.
    expect(deployed.stderr).toMatch(
      /^(transaction|job|deal) \S+ submitted; waiting \(Ctrl-C stops waiting, not the (transaction|job|deal)\)\n$/,
    );
    expect(deployed.code).toBe(0);
    const result = JSON.parse(deployed.stdout) as {
      address: string;
      ethAddress: string;
      txHash: string;
      blockNumber: number;
      abi: { kept: number; dropped: number };
    };
    expect(result.address).toMatch(/^svc1[0-9a-f]{40}$/);
    // The artifact's ABI is kept by the node for its explorer: what the code bears out (the constructor is left out).
    expect(result.abi).toMatchObject({ address: result.address, dropped: 1 });
    expect(result.abi.kept).toBeGreaterThan(5);
    address = result.ethAddress;
    const human = await svc('contract', 'deploy', artifact, '--args', '["5"]', '--dev-account', '0', '--wait');
    expect(human.stderr).toMatch(/^transaction 0x[0-9a-f]{64} submitted; waiting/);
    expect(human.stdout).toMatch(
      /^contract 0x[0-9a-fA-F]{40} \(svc1[0-9a-f]{40}\)\ntransaction 0x[0-9a-f]{64} mined in block \d+, \d+ gas\nABI kept by the node for its explorer: \d+ entries \(1 not in the code, or a constructor, left out\)\n$/,
    );
  });

  it("gives the node the ABI of a contract deployed before (svc contract abi), and says when the ABI is not that contract's", async () => {
    const kept = await svc('contract', 'abi', address, artifact);
    expect([kept.code, kept.stderr]).toEqual([0, '']);
    expect(kept.stdout).toMatch(/^ABI kept by the node for its explorer: \d+ entries/);
    const foreign = writeTempJson([
      { type: 'function', name: 'notHere', inputs: [], outputs: [], stateMutability: 'view' },
    ]);
    const refused = await svc('contract', 'abi', address, foreign);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(
      /none of the ABI's 1 entries is in the code of svc1[0-9a-f]{40}: is it this contract's ABI\?/,
    );
    expect((await svc('contract', 'abi', address)).stderr.trim()).toBe(
      'svc: usage: svc contract abi <address> <artifact.json|abi.json>',
    );
  });

  it("calls with cast's way of writing a function, sends a transfer, and lists the decoded logs", async () => {
    const owner = devnetKey('account', 0).address;
    expect((await svc('contract', 'call', address, 'balanceOf(address)(uint256)', owner)).stdout).toBe('1000\n');
    // Without return types: the returned bytes, raw.
    const raw = await svc('contract', 'call', address, 'balanceOf(address)', owner);
    expect([raw.code, raw.stdout]).toEqual([0, `0x${(1000).toString(16).padStart(64, '0')}\n`]);
    const sent = await svc(
      'contract',
      'send',
      address,
      'transfer(address,uint256)',
      '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      '250',
      '--dev-account',
      '0',
      '--wait',
    );
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/mined in block \d+, \d+ gas, 1 logs/);
    // Its receipt for a person: the price in gwei, the fee in OMC, each log on lines of its own.
    const hash = /transaction (0x[0-9a-f]{64})/.exec(sent.stdout)![1]!;
    const receipt = await svc('receipt', hash);
    expect(receipt.stdout).toMatch(/^effectiveGasPrice +\d+(\.\d+)? gwei$/m);
    expect(receipt.stdout).toMatch(/^fee +[\d.]+ OMC \(\d+ gas × \d+(\.\d+)? gwei\)$/m);
    expect(receipt.stdout).toMatch(
      new RegExp(
        `^log 0  svc1${address.slice(2).toLowerCase()}\n  topic 0  0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef\n`,
        'm',
      ),
    );
    expect((await svc('contract', 'call', address, 'balanceOf(address)(uint256)', owner)).stdout).toBe('750\n');
    const logs = await svc('contract', 'logs', address, '--event', 'Transfer(address indexed,address indexed,uint256)');
    expect(logs.stdout.trim().split('\n')).toHaveLength(2);
    expect(logs.stdout).toMatch(/Transfer\(0x[0-9a-fA-F]{40}, 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, 250\)/);
  });

  it('refuses what it cannot encode with a line naming it and exit 2, and a revert with its reason', async () => {
    const count = await svc('contract', 'call', address, 'balanceOf(address)(uint256)');
    expect([count.code, count.stderr.trim()]).toEqual([2, 'svc: balanceOf takes 1 argument (address), got 0']);
    const type = await svc('contract', 'call', address, 'balanceOf(address)(uint256)', 'bob');
    expect([type.code, type.stderr.trim()]).toEqual([
      2,
      'svc: argument 1 (address): expected an svc1… or 0x… address, got "bob"',
    ]);
    const revert = await svc(
      'contract',
      'send',
      address,
      'transfer(address,uint256)',
      '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      '99999',
      '--dev-account',
      '0',
    );
    expect(revert.code).not.toBe(0);
    expect(revert.stderr).toMatch(/execution_reverted.*custom error 0x[0-9a-f]{8}/);
  });

  it('decodes return values and custom errors with --abi, and takes a function by its name alone', async () => {
    const owner = devnetKey('account', 0).address;
    expect((await svc('contract', 'call', address, 'balanceOf', owner, '--abi', artifact)).stdout).toBe('750\n');
    // Refused at the estimate, and mined failed with --gas-limit: the error by its name and arguments either way.
    const estimated = await svc(
      'contract',
      'send',
      address,
      'transfer',
      '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      '99999',
      '--dev-account',
      '0',
      '--abi',
      artifact,
    );
    expect(estimated.stderr).toMatch(/execution_reverted.*InsufficientBalance\(0x[0-9a-fA-F]{40}, 750, 99999\)/);
    const mined = await svc(
      'contract',
      'send',
      address,
      'transfer(address,uint256)',
      '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      '99999',
      '--dev-account',
      '0',
      '--gas-limit',
      '100000',
      '--wait',
      '--abi',
      artifact,
    );
    expect(mined.code).not.toBe(0);
    expect(mined.stderr).toMatch(/execution_reverted.*InsufficientBalance\(0x[0-9a-fA-F]{40}, 750, 99999\)/);
    const unknown = await svc('contract', 'call', address, 'balanceOff', owner, '--abi', artifact);
    expect([unknown.code, unknown.stderr.trim()]).toEqual([2, 'svc: the ABI has no function "balanceOff"']);
  });
});

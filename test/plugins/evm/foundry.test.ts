import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNodeProcess, type RunningNode } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/temp-dirs.js';
import { contracts } from '../../helpers/contracts.js';
import { cast, TEST_ADDRESS_0, TEST_ADDRESS_1, TEST_KEY_0 } from '../../helpers/foundry.js';

/** A number as cast prints it (`12345 [1.234e4]`). */
const number = (printed: string): bigint => BigInt(printed.split(' ')[0]!);

const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

describe('Foundry against a devnet node, unchanged', () => {
  let node: RunningNode;
  let token: string;
  let transferHash: string;

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

  it('cast reads the chain id and the default test account funded in genesis', async () => {
    expect(await cast(['chain-id', '--rpc-url', node.url])).toBe(String(0x737663));
    expect(BigInt(await cast(['balance', TEST_ADDRESS_0, '--rpc-url', node.url]))).toBe(10_000n * 10n ** 18n);
  });

  it('cast send --create deploys an ERC-20 with its constructor argument, and the receipt names the contract', async () => {
    const { bytecode } = contracts().Token!;
    const receipt = JSON.parse(
      await cast([
        'send',
        '--rpc-url',
        node.url,
        '--private-key',
        TEST_KEY_0,
        '--json',
        '--create',
        bytecode,
        'constructor(uint256)',
        '1000000',
      ]),
    ) as { status: string; contractAddress: string };
    expect(receipt.status).toBe('0x1');
    token = receipt.contractAddress;
    expect(token.toLowerCase()).toBe('0x5fbdb2315678afecb367f032d93f642f64180aa3');
    expect(number(await cast(['call', '--rpc-url', node.url, token, 'totalSupply()(uint256)']))).toBe(1_000_000n);
  });

  it('cast send transfers, cast call reads balanceOf, and cast receipt shows status 1 and the Transfer log', async () => {
    const sent = JSON.parse(
      await cast([
        'send',
        '--rpc-url',
        node.url,
        '--private-key',
        TEST_KEY_0,
        '--json',
        token,
        'transfer(address,uint256)',
        TEST_ADDRESS_1,
        '12345',
      ]),
    ) as { transactionHash: string };
    transferHash = sent.transactionHash;
    expect(
      number(await cast(['call', '--rpc-url', node.url, token, 'balanceOf(address)(uint256)', TEST_ADDRESS_1])),
    ).toBe(12_345n);
    const receipt = JSON.parse(await cast(['receipt', '--rpc-url', node.url, '--json', transferHash])) as {
      status: string;
      logs: { address: string; topics: string[]; data: string }[];
    };
    expect(receipt.status).toBe('0x1');
    expect(receipt.logs).toHaveLength(1);
    expect(receipt.logs[0]!.address.toLowerCase()).toBe(token.toLowerCase());
    expect(receipt.logs[0]!.topics[0]).toBe(TRANSFER_TOPIC);
    expect(BigInt(receipt.logs[0]!.data)).toBe(12345n);
  });

  it('cast logs finds the transfer by its event signature and indexed recipient', async () => {
    const logs = JSON.parse(
      await cast([
        'logs',
        '--rpc-url',
        node.url,
        '--json',
        '--from-block',
        '0',
        '--address',
        token,
        'Transfer(address indexed,address indexed,uint256)',
        '',
        TEST_ADDRESS_1,
      ]),
    ) as { transactionHash: string }[];
    expect(logs.map((log) => log.transactionHash)).toEqual([transferHash]);
  });

  it("cast run replays the transfer from its parent block's state and uses the gas the receipt says", async () => {
    const replay = await cast(['run', '--rpc-url', node.url, transferHash], 120_000);
    expect(replay).toContain('Transaction successfully executed');
    const gasUsed = BigInt(await cast(['receipt', '--rpc-url', node.url, transferHash, 'gasUsed']));
    expect(replay).toContain(`Gas used: ${gasUsed}`);
  });
});

import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetKey, generateKeyPair } from '../../sdk/index.js';
import { run, startNodeProcess, SVC, type RunningNode } from '../helpers/cli.js';
import { tempDir } from '../helpers/test-node.js';
import { cast, TEST_ADDRESS_1, TEST_KEY_0 } from '../helpers/foundry.js';

let node: RunningNode;
const dirs: string[] = [];
beforeAll(async () => {
  const dataDir = tempDir('svc-cli-client-');
  dirs.push(dataDir);
  node = await startNodeProcess([
    '--role',
    'validator',
    '--data-dir',
    dataDir,
    '--bind',
    '127.0.0.1:0',
    '--block-time',
    '100',
  ]);
});
afterAll(async () => {
  await node.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const svc = (...args: string[]) => run(SVC, [...args, '--url', node.url]);

describe('svc client CLI', () => {
  it('funds an address from the faucet, waits for the block, and shows the balance', async () => {
    const address = generateKeyPair().address;
    const faucet = await svc('faucet', address, '--wait');
    expect(faucet.code).toBe(0);
    expect(faucet.stdout).toMatch(/^funded: 10 OMC \+ 5 OGT \(tx 0x[0-9a-f]{64}, block \d+\)/);
    const balance = await svc('balance', address, '--json');
    expect(JSON.parse(balance.stdout)).toMatchObject({
      address,
      balanceOMC: '10.000000000000000000',
      balanceOGT: '5.000000000000000000',
      omc: '10000000000000000000',
    });
    const again = await svc('faucet', address);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/cooldown_active \(-32010\): .*try again in \d+ s/);
  });

  it('shows an Ethereum transaction with the EVM chain id it signs for and its fee caps in gwei', async () => {
    const sent = JSON.parse(
      await cast([
        'send',
        '--rpc-url',
        node.url,
        '--private-key',
        TEST_KEY_0,
        TEST_ADDRESS_1,
        '--value',
        '1',
        '--gas-price',
        '2gwei',
        '--priority-gas-price',
        '1gwei',
        '--json',
      ]),
    ) as { transactionHash: string };
    const shown = (await svc('tx', sent.transactionHash)).stdout;
    expect(shown).toMatch(/^chainId +svc-devnet-1 \(the transaction signs for EVM chain id 7566947\)$/m);
    expect(shown).toMatch(/^payload +type 2, .*maxFeePerGas 2 gwei, maxPriorityFeePerGas 1 gwei, rlp 0x02/m);
    // The svc_ side names the recipient svc1…, as the transaction's receipt does.
    expect(JSON.parse((await svc('tx', sent.transactionHash, '--json')).stdout).payload.to).toBe(
      `svc1${TEST_ADDRESS_1.slice(2).toLowerCase()}`,
    );
  });

  it('transfers from a dev account and from a key file, and shows the transaction and receipt', async () => {
    const d = tempDir('svc-keys-');
    dirs.push(d);
    const keyFile = join(d, 'me.json');
    const created = await run(SVC, ['keys', 'new', '--out', keyFile, '--json']);
    expect(created.code).toBe(0);
    const me = JSON.parse(created.stdout) as { address: string };
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(keyFile, 'utf8'))).toMatchObject({
      address: me.address,
      secretKey: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });

    const sent = await svc('transfer', '--to', me.address, '--amount', '2.5', '--dev-account', '3', '--wait', '--json');
    expect(sent.code).toBe(0);
    const { hash, receipt } = JSON.parse(sent.stdout) as { hash: string; receipt: { status: string } };
    expect(receipt.status).toBe('success');
    expect(JSON.parse((await svc('tx', hash, '--json')).stdout)).toMatchObject({
      hash,
      status: 'mined',
      from: devnetKey('account', 3).address,
      payload: { amount: '2500000000000000000' },
    });
    // A person reads the amount in tokens; --json keeps base units.
    expect((await svc('tx', hash)).stdout).toMatch(/^payload +to svc1[0-9a-f]{40}, asset OMC, amount 2\.5 OMC$/m);
    expect(JSON.parse((await svc('receipt', hash, '--json')).stdout)).toMatchObject({
      transactionHash: hash,
      status: 'success',
    });

    const back = await svc(
      'transfer',
      '--to',
      devnetKey('account', 3).address,
      '--amount',
      '1',
      '--key-file',
      keyFile,
      '--wait',
    );
    expect(back.code).toBe(0);
    expect(back.stdout).toMatch(/^sent: 1 OMC to svc1/);
    expect(JSON.parse((await svc('balance', me.address, '--json')).stdout)).toMatchObject({
      balanceOMC: '1.500000000000000000',
    });
    // The account's transactions, newest first: the one it signed, then the one that paid it.
    const listed = await svc('txs', me.address, '--limit', '1');
    expect(listed.stdout).toMatch(/^\d+\t0x[0-9a-f]{64}\ttransfer\tfrom svc1[0-9a-f]{40}\nmore: --cursor \d+:\d+\n$/);
    const cursor = /--cursor (\S+)/.exec(listed.stdout)![1]!;
    expect(JSON.parse((await svc('txs', me.address, '--cursor', cursor, '--json')).stdout)).toMatchObject({
      transactions: [{ hash, from: devnetKey('account', 3).address }],
      cursor: null,
    });

    const overdraft = await svc(
      'transfer',
      '--to',
      devnetKey('account', 3).address,
      '--amount',
      '100',
      '--key-file',
      keyFile,
    );
    expect(overdraft.code).toBe(1);
    expect(overdraft.stderr).toContain('insufficient_funds (-32021)');
  });

  it('takes an 0x address wherever it takes an svc1 one, as the same account', async () => {
    const key = generateKeyPair();
    const eth = `0x${key.address.slice(4).toUpperCase()}`;
    const funded = await svc('faucet', eth, '--wait');
    expect(funded.code, funded.stderr).toBe(0);
    const sent = await svc('transfer', '--to', eth, '--amount', '1', '--dev-account', '4', '--wait');
    expect(sent.stdout).toMatch(new RegExp(`^sent: 1 OMC to ${key.address} in block`));
    expect(JSON.parse((await svc('balance', eth, '--json')).stdout)).toMatchObject({
      address: key.address,
      balanceOMC: '11.000000000000000000',
    });
    expect((await svc('nonce', eth)).stdout.trim()).toBe('0');
    expect(JSON.parse((await svc('txs', eth, '--json')).stdout).transactions).toHaveLength(2);
    // A mixed-case address with a wrong EIP-55 checksum is a typo: refused, not converted.
    const typo = await svc('balance', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92267');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('invalid_address');
  });

  it('refuses bad input with a clear line and exit 2', async () => {
    const noSigner = await svc('transfer', '--to', devnetKey('account', 1).address, '--amount', '1');
    expect(noSigner.code).toBe(2);
    expect(noSigner.stderr).toContain('a signer is needed');
    const badAmount = await svc(
      'transfer',
      '--to',
      devnetKey('account', 1).address,
      '--amount',
      '1.2.3',
      '--dev-account',
      '0',
    );
    expect(badAmount.code).toBe(2);
    expect(badAmount.stderr).toContain('--amount');
    expect(badAmount.stderr).toContain('got "1.2.3"');
    // Refused before anything is sent: exit 2, and what was typed is echoed.
    const badAddress = await svc('balance', 'svc1xyz');
    expect(badAddress.code).toBe(2);
    expect(badAddress.stderr).toBe(
      'svc: invalid_address (-32602): address is not a valid address (svc1 followed by 40 hex characters), got "svc1xyz"\n',
    );
    const badHash = await svc('receipt', '0x12');
    expect(badHash.code).toBe(2);
    expect(badHash.stderr).toContain('got "0x12"');
    // With --json, errors are JSON too (on stderr; stdout stays for results).
    const asJson = await svc('balance', 'svc1xyz', '--json');
    expect(asJson.code).toBe(2);
    expect(JSON.parse(asJson.stderr)).toEqual({
      error: {
        code: -32602,
        message: 'invalid_address',
        data: {
          reason: 'address is not a valid address (svc1 followed by 40 hex characters)',
          field: 'address',
          given: 'svc1xyz',
        },
      },
    });
    const usageJson = await svc(
      'transfer',
      '--to',
      devnetKey('account', 1).address,
      '--amount',
      '1.2.3',
      '--dev-account',
      '0',
      '--json',
    );
    expect(usageJson.code).toBe(2);
    expect(JSON.parse(usageJson.stderr)).toMatchObject({
      error: { kind: 'usage', message: expect.stringContaining('got "1.2.3"') },
    });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await run(SVC, ['block-number', '--url', `http://127.0.0.1:${port}`]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toBe(`svc: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\n`);
  });

  it('sends exactly the amount typed, to the last of 18 fractional digits', async () => {
    const to = generateKeyPair().address;
    const exact = await svc(
      'transfer',
      '--to',
      to,
      '--amount',
      '1.123456789123456789',
      '--dev-account',
      '4',
      '--wait',
      '--json',
    );
    expect(exact.code).toBe(0);
    const smallest = await svc(
      'transfer',
      '--to',
      to,
      '--amount',
      '0.000000000000000001',
      '--dev-account',
      '4',
      '--wait',
      '--json',
    );
    expect(smallest.code).toBe(0);
    const ogt = await svc('transfer', '--to', to, '--amount=0.5', '--asset', 'ogt', '--dev-account', '4', '--wait');
    expect(ogt.stdout).toMatch(/^sent: 0.5 OGT to svc1/);
    expect(JSON.parse((await svc('balance', to, '--json')).stdout)).toMatchObject({
      omc: '1123456789123456790',
      ogt: '500000000000000000',
    });
  });

  it.each([
    [
      ['transfer', '--amount', '1.0000000000000000001'],
      '--amount: expected an amount of OMC like 1.5, with at most 18 fractional digits and no sign, got "1.0000000000000000001"',
    ],
    [
      ['transfer', '--amount', '1'.padEnd(61, '0')],
      `--amount: ${'1'.padEnd(61, '0')} OMC is more than the largest amount the chain takes (${'9'.repeat(60)}.999999999999999999 OMC)`,
    ],
    [
      ['transfer', '--amount', '-1'],
      '--amount: expected an amount of OMC like 1.5, with at most 18 fractional digits and no sign, got "-1"',
    ],
    [
      ['transfer', '--amount', '1e-18'],
      '--amount: expected an amount of OMC like 1.5, with at most 18 fractional digits and no sign, got "1e-18"',
    ],
    [['transfer', '--amount', '0'], '--amount: must be more than 0 OMC'],
    [['transfer', '--amount', '1', '--asset', 'BTC'], '--asset: expected one of OMC, OGT, got "BTC"'],
    [
      ['transfer', '--amount', '1', '--dev-account', '10'],
      '--dev-account: expected a whole number from 0 to 9, got "10"',
    ],
    [
      ['transfer', '--amount', '1', '--dev-account', '1e0'],
      '--dev-account: expected a whole number from 0 to 9, got "1e0"',
    ],
    [
      ['balance', devnetKey('account', 1).address, '--block', '1e1'],
      '--block: expected a whole number of at least 0, got "1e1"',
    ],
    [['watch', 'heads', '--from', '2.0'], '--from: expected a whole number of at least 0, got "2.0"'],
    [
      ['oon', 'register', '--capabilities', 'wasm', '--bond', '1e3', '--max-jobs', '2'],
      '--bond: expected an amount of OGT like 1.5, with at most 18 fractional digits and no sign, got "1e3"',
    ],
    [
      ['oon', 'register', '--capabilities', 'wasm', '--bond', '1000.0000000000000000001', '--max-jobs', '2'],
      '--bond: expected an amount of OGT like 1.5, with at most 18 fractional digits and no sign, got "1000.0000000000000000001"',
    ],
    [
      ['oon', 'register', '--capabilities', 'wasm,gpu', '--bond', '1000', '--max-jobs', '2'],
      '--capabilities: "gpu" is not one of wasm, evm',
    ],
    [
      ['oon', 'register', '--capabilities', 'wasm', '--bond', '1000', '--max-jobs', '0'],
      '--max-jobs: expected a whole number of at least 1, got "0"',
    ],
    [
      ['oon', 'register', '--capabilities', 'wasm', '--bond', '1000', '--max-jobs', '1.5'],
      '--max-jobs: expected a whole number of at least 1, got "1.5"',
    ],
    [
      ['omp', 'register', '--formats', 'image', '--bond', '500', '--capacity-gb', '1e2'],
      '--capacity-gb: expected a positive number like 250 or 0.5, got "1e2"',
    ],
    [
      ['omp', 'register', '--formats', 'audio', '--bond', '500', '--capacity-gb', '10'],
      '--formats: "audio" is not one of image, video, document',
    ],
    [['oon', 'launch'], 'unknown oon action "launch" (expected one of register, status, unregister, providers)'],
  ])('refuses %j as typed, with one line and exit 2', async (args, message) => {
    const withTo =
      args[0] === 'transfer'
        ? [
            ...args,
            '--to',
            devnetKey('account', 1).address,
            ...(args.includes('--dev-account') ? [] : ['--dev-account', '0']),
          ]
        : args;
    const result = await svc(...withTo);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 2, stderr: `svc: ${message}\n` });
  });

  it('watch heads prints heads as they come, from a given height, until Ctrl-C', async () => {
    const child = spawn(process.execPath, [SVC, 'watch', 'heads', '--from', '1', '--url', node.url], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.split('\n').length > 4) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    const lines = out.trim().split('\n').slice(0, 4);
    lines.forEach((line, i) => {
      expect(line).toMatch(new RegExp(`^#${i + 1} 0x[0-9a-f]{64} \\d+ tx \\d{4}-`));
    });
  });

  it('shows chain and node info', async () => {
    expect(JSON.parse((await svc('chain-info', '--json')).stdout)).toMatchObject({
      chainId: 'svc-devnet-1',
      network: 'devnet',
    });
    // Human-readable unless --json: aligned `key  value` lines, not JSON.
    const human = (await svc('chain-info')).stdout;
    expect(human).toMatch(/^chainId\s+svc-devnet-1$/m);
    expect(() => JSON.parse(human)).toThrow();
    const block = (await svc('block', '1')).stdout;
    expect(block).toMatch(/^height\s+1$/m);
    expect(block).toMatch(/^hash\s+0x[0-9a-f]{64}$/m);
    expect((await svc('node-info')).stdout).toMatch(/^role\s+validator$/m);
    expect(JSON.parse((await svc('node-info', '--json')).stdout)).toMatchObject({
      role: 'validator',
      listenAddresses: [expect.stringMatching(/^\/ip4\/127\.0\.0\.1\/tcp\/\d+\/p2p\//)],
    });
    expect((await svc('syncing')).stdout.trim()).toBe('synced');
    expect(JSON.parse((await svc('peers', '--json')).stdout)).toEqual([]);
    expect((await svc('peers')).stdout.trim()).toBe('no peers');
    expect(Number((await svc('nonce', devnetKey('account', 9).address)).stdout.trim())).toBe(0);
  });
});

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair } from '../../sdk/index.js';
import { SVC } from '../helpers/cli.js';
import { startTestNode, tempDir, waitFor, type TestNode } from '../helpers/test-node.js';
import { plainDevnet } from '../helpers/plain-devnet.js';

// A validator that makes no block for an hour: every --wait waits until it is interrupted.
let node: TestNode;
beforeAll(async () => {
  node = await startTestNode({ validator: { blockTime: 3_600_000 } });
});
afterAll(() => node?.stop());

/** Runs `svc <args>`, sends SIGINT once it says it waits, and resolves with how it ended. */
function interruptWhenWaiting(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SVC, ...args, '--url', node.url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (/submitted; waiting/.test(stderr) && !child.killed) child.kill('SIGINT');
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('--wait', () => {
  it('prints the transaction hash before it waits; Ctrl-C prints it again with the command that follows it up, and exits 130', async () => {
    const to = generateKeyPair().address;
    for (const args of [
      ['transfer', '--dev-account', '0', '--to', to, '--amount', '1', '--wait'],
      ['faucet', generateKeyPair().address, '--wait'],
    ]) {
      const { code, stderr } = await interruptWhenWaiting(args);
      const hash = /transaction (0x[0-9a-f]{64}) submitted; waiting/.exec(stderr)?.[1];
      expect(hash, `${args[0]}: ${stderr}`).toBeDefined();
      expect(code, `${args[0]}: ${stderr}`).toBe(130);
      expect(stderr).toContain(
        `stopped waiting: transaction ${hash} stands; follow it up with\n  svc receipt ${hash} --url ${node.url}`,
      );
    }
  }, 60_000);

  it('prints the job id before it waits; Ctrl-C names the command that follows the job up, and exits 130', async () => {
    const code = join(tempDir('svc-wait-'), 'return-one.hex');
    // PUSH1 1, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN: an EVM job that returns 1.
    writeFileSync(code, '0x600160005260206000f3');
    const { code: exit, stderr } = await interruptWhenWaiting([
      'job',
      'submit',
      '--runtime',
      'evm',
      '--code',
      code,
      '--gas-limit',
      '100000',
      '--dev-account',
      '2',
      '--wait',
    ]);
    const id = /job (0x[0-9a-f]{64}) submitted; waiting/.exec(stderr)?.[1];
    expect(id, stderr).toBeDefined();
    expect(exit, stderr).toBe(130);
    expect(stderr).toContain(
      `stopped waiting: job ${id} stands; follow it up with\n  svc job status ${id} --wait --url ${node.url}`,
    );
  }, 60_000);

  it('on a terminal, shows each state the job reaches while it waits (in a pipe it says nothing of them: the oon-jobs CLI test finds one stderr line)', async () => {
    // A node that makes blocks but has no compute provider: the job is mined and stays queued.
    const moving = await startTestNode({ ...plainDevnet(), validator: { blockTime: 100 } });
    try {
      const code = join(tempDir('svc-wait-tty-'), 'return-one.hex');
      writeFileSync(code, '0x600160005260206000f3');
      const command = [
        process.execPath,
        SVC,
        'job',
        'submit',
        '--runtime',
        'evm',
        '--code',
        code,
        '--gas-limit',
        '100000',
        '--dev-account',
        '3',
        '--wait',
        '--url',
        moving.url,
      ];
      // util-linux `script` runs the command on a pseudo-terminal: stderr is a TTY.
      const tty = spawn('script', ['-qfec', command.join(' '), '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      tty.stdout.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise((resolve) => tty.once('exit', resolve));
      await waitFor(
        () => out,
        (text) => /^\s+queued \(waiting: no active provider offers evm\) after \d+\.\d s/m.test(text),
        20_000,
        'the queued state on the terminal',
      );
      expect(out).toMatch(/job 0x[0-9a-f]{64} submitted; waiting/);
      tty.kill('SIGKILL');
      await exited;
    } finally {
      await moving.stop();
    }
  }, 60_000);
});

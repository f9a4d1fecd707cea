import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519.js';
import { DoubleSignRefused, SignState } from '../../consensus/sign-state.js';
import { tempDir } from '../helpers/temp-dirs.js';

const secret = new Uint8Array(32).fill(7);
const signer = (bytes: Uint8Array): Uint8Array => ed25519.sign(bytes, secret);
const vote = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('signing state (double-sign protection)', () => {
  it('signs forward only: a lower height, round or step is refused, the same one only with the same bytes', () => {
    const state = SignState.open(join(tempDir(), 'sign-state.json'));
    const first = state.sign(5, 0, 'prevote', vote('prevote 5/0 X'), signer);
    expect(state.sign(5, 0, 'prevote', vote('prevote 5/0 X'), signer)).toEqual(first);
    expect(() => state.sign(5, 0, 'prevote', vote('prevote 5/0 Y'), signer)).toThrow(DoubleSignRefused);
    state.sign(5, 0, 'precommit', vote('precommit 5/0 X'), signer);
    expect(() => state.sign(5, 0, 'prevote', vote('prevote 5/0 X'), signer)).toThrow(
      /already signed precommit at 5\/0/,
    );
    state.sign(5, 1, 'proposal', vote('proposal 5/1'), signer);
    expect(() => state.sign(4, 9, 'precommit', vote('old'), signer)).toThrow(DoubleSignRefused);
    state.sign(6, 0, 'prevote', vote('prevote 6/0'), signer);
  });

  it('remembers across a reopen, and refuses to start from a damaged file', () => {
    const dir = tempDir();
    const path = join(dir, 'sign-state.json');
    SignState.open(path).sign(9, 2, 'precommit', vote('precommit 9/2 X'), signer);
    const again = SignState.open(path);
    expect(again.lastSigned()).toMatchObject({ height: 9, round: 2, step: 'precommit' });
    expect(() => again.sign(9, 2, 'precommit', vote('precommit 9/2 Y'), signer)).toThrow(DoubleSignRefused);
    writeFileSync(path, '{"height": "nine"');
    expect(() => SignState.open(path)).toThrow();
  });

  it('keeps every vote of the current round across a reopen, so a restart sends again a prevote that may never have left', () => {
    const path = join(tempDir(), 'sign-state.json');
    const state = SignState.open(path);
    state.sign(20, 0, 'prevote', vote('prevote 20/0 nil'), signer, undefined, { type: 'prevote', round: 0 });
    state.sign(20, 0, 'precommit', vote('precommit 20/0 nil'), signer, undefined, { type: 'precommit', round: 0 });
    const reopened = SignState.open(path).lastSigned()!;
    expect(reopened.message).toEqual({ type: 'precommit', round: 0 });
    expect(reopened.earlier.map((e) => e.message)).toEqual([{ type: 'prevote', round: 0 }]);
    expect(reopened.earlier[0]!.signature).toBe(Buffer.from(signer(vote('prevote 20/0 nil'))).toString('hex'));
    state.sign(20, 1, 'prevote', vote('prevote 20/1 nil'), signer, undefined, { type: 'prevote', round: 1 });
    expect(SignState.open(path).lastSigned()!.earlier).toEqual([]);
  });

  it('keeps the lock (the last value precommitted at a height) across a reopen, for that height only', () => {
    const path = join(tempDir(), 'sign-state.json');
    const state = SignState.open(path);
    state.sign(12, 0, 'prevote', vote('prevote 12/0 X'), signer);
    expect(state.lockAt(12)).toBeUndefined();
    state.sign(12, 0, 'precommit', vote('precommit 12/0 X'), signer, 'X');
    state.sign(12, 1, 'prevote', vote('prevote 12/1 nil'), signer);
    expect(SignState.open(path).lockAt(12)).toEqual({ round: 0, value: 'X' });
    state.sign(12, 2, 'precommit', vote('precommit 12/2 Y'), signer, 'Y');
    expect(SignState.open(path).lockAt(12)).toEqual({ round: 2, value: 'Y' });
    state.sign(13, 0, 'prevote', vote('prevote 13/0'), signer);
    expect(SignState.open(path).lockAt(13)).toBeUndefined();
    expect(SignState.open(path).lockAt(12)).toBeUndefined();
  });

  it('never signs two different votes for one step, killed (SIGKILL) right after signing 20 times in a row', async () => {
    const dir = tempDir();
    const path = join(dir, 'sign-state.json');
    // A validator process that signs one vote, says so, and waits to be killed (it imports by absolute path: it runs from a temp dir).
    const script = join(dir, 'sign-once.mjs');
    writeFileSync(
      script,
      `import { SignState } from ${JSON.stringify(resolve('dist/consensus/sign-state.js'))};
       import { keyPairFromSecret, signWith } from ${JSON.stringify(resolve('dist/sdk/keys.js'))};
       const [height, round, step, value] = process.argv.slice(2);
       try {
         const signature = SignState.open(${JSON.stringify(path)}).sign(Number(height), Number(round), step, new TextEncoder().encode(step + ' ' + height + '/' + round + ' ' + value), (b) => signWith(keyPairFromSecret(new Uint8Array(32).fill(7)), b));
         process.stdout.write('signed ' + Buffer.from(signature).toString('hex') + '\\n');
       } catch (error) {
         process.stdout.write('refused ' + error.message + '\\n');
       }
       setInterval(() => {}, 1000);`,
    );
    const signOnce = (height: number, round: number, step: string, value: string): Promise<string> =>
      new Promise((done, fail) => {
        const child = spawn(process.execPath, [script, String(height), String(round), step, value], {
          stdio: ['ignore', 'pipe', 'inherit'],
          cwd: resolve('.'),
        });
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) child.kill('SIGKILL');
        });
        child.on('exit', () => (out ? done(out.trim()) : fail(new Error('the signer died without a word'))));
      });
    // Every signature that left a process, by step: evidence would be two for one step.
    const signed = new Map<string, Set<string>>();
    const record = (step: string, answer: string): void => {
      if (answer.startsWith('signed ')) signed.set(step, new Set([...(signed.get(step) ?? []), answer]));
    };
    for (let i = 0; i < 20; i++) {
      const height = 10 + i;
      const first = await signOnce(height, 0, 'prevote', `value-${i}`);
      expect(first).toMatch(/^signed /);
      record(`${height}/0/prevote`, first);
      // Restarted after the kill, asked to sign another value for the same step: refused.
      const other = await signOnce(height, 0, 'prevote', `other-${i}`);
      expect(other).toMatch(/^refused refusing to sign other bytes/);
      record(`${height}/0/prevote`, other);
      // Asked again for the same vote: the same signature.
      const same = await signOnce(height, 0, 'prevote', `value-${i}`);
      expect(same).toBe(first);
      record(`${height}/0/prevote`, same);
    }
    expect(signed.size).toBe(20);
    for (const signatures of signed.values()) expect(signatures.size).toBe(1);
    // A bound against a hang, not a speed goal: 60 process starts take a minute beside a loaded suite.
  }, 180_000);
});

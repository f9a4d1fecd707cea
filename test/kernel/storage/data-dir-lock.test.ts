import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../../kernel/storage/data-dir-lock.js';
import { tempDir } from '../../helpers/test-node.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('data dir lock', () => {
  it('refuses a second holder while the first holds it, and frees it on release', () => {
    const dir = tempDir();
    dirs.push(dir);
    const lock = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(/--data-dir .*in use by another svc-node/);
    lock.release();
    lockDataDir(dir).release();
  });

  it('refuses a data dir held by another live process', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      writeFileSync(join(dir, 'node.lock'), `${holder.pid}\n`);
      expect(() => lockDataDir(dir)).toThrow(new RegExp(`pid ${holder.pid}`));
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('takes over a lock left by a process that died', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const dead = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((resolve) => dead.once('exit', resolve));
    writeFileSync(join(dir, 'node.lock'), `${dead.pid}\n`);
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, 'node.lock'), 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });
});

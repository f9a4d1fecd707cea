import { spawnSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/test-node.js';

describe('installing the package', () => {
  it('`npm install` resolves the locked tree with no warning (no peer dependency overridden)', () => {
    const dir = tempDir();
    for (const file of ['package.json', 'package-lock.json', '.npmrc']) copyFileSync(file, join(dir, file));
    const resolved = spawnSync('npm', ['install', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(resolved.status, resolved.stderr).toBe(0);
    expect(`${resolved.stdout}${resolved.stderr}`.split('\n').filter((line) => /\bwarn\b/i.test(line))).toEqual([]);
  });
});

import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/test-node.js';

interface Lock {
  packages: Record<string, { hasInstallScript?: boolean; dev?: boolean }>;
}

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

  it("allows the install scripts of exactly the dependencies that have one (npm's allowScripts: none left to review)", () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { allowScripts?: Record<string, boolean> };
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as Lock;
    const withScripts = new Set(
      Object.entries(lock.packages)
        .filter(([path, p]) => path !== '' && p.hasInstallScript)
        .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)),
    );
    expect(Object.keys(pkg.allowScripts ?? {}).sort()).toEqual([...withScripts].sort());
  });
});

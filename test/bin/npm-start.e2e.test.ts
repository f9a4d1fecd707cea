import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('npm start', () => {
  it('does not rebuild when dist/ is current (the build is incremental)', async () => {
    const built = ['dist/kernel/host.js', 'dist/bin/svc-node.js'];
    const before = built.map((file) => statSync(file).mtimeMs);
    const npm = await new Promise<number | null>((resolve) =>
      spawn('npm', ['run', 'build', '--silent'], { stdio: 'ignore' }).once('exit', resolve),
    );
    expect(npm).toBe(0);
    expect(built.map((file) => statSync(file).mtimeMs)).toEqual(before);
  });
});

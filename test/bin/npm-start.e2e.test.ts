import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('npm start', () => {
  // The explorer's files too: a build beside a running node (or beside the browser tests) must not
  // take its page away while it writes it again.
  it('does not rebuild when dist/ is current (the build is incremental), the explorer page included', async () => {
    const built = ['dist/kernel/host.js', 'dist/bin/svc-node.js', 'dist/ui/app.js', 'dist/ui/index.html'];
    const before = built.map((file) => statSync(file).mtimeMs);
    const npm = await new Promise<number | null>((resolve) =>
      spawn('npm', ['run', 'build', '--silent'], { stdio: 'ignore' }).once('exit', resolve),
    );
    expect(npm).toBe(0);
    expect(built.map((file) => statSync(file).mtimeMs)).toEqual(before);
  });
});

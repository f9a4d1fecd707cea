import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/test-node.js';

// systemd's own check of the unit, with the systemd-analyze that Debian's systemd installs.
describe('deploy/svc-node@.service', () => {
  it('passes systemd-analyze verify as an instance', () => {
    if (spawnSync('systemd-analyze', ['--version']).status !== 0)
      throw new Error('systemd-analyze is not installed: apt-get install systemd (.ci/run does)');
    const dir = tempDir();
    const instance = join(dir, 'svc-node@validator0.service');
    copyFileSync('deploy/svc-node@.service', instance);
    const verified = spawnSync('systemd-analyze', ['verify', instance], { encoding: 'utf8' });
    expect({ status: verified.status, stderr: verified.stderr }).toEqual({ status: 0, stderr: '' });
    // It can fail: a key systemd does not know is named.
    execFileSync('sh', ['-c', `sed 's/^Restart=/Restartt=/' deploy/svc-node@.service > ${instance}`]);
    expect(spawnSync('systemd-analyze', ['verify', instance], { encoding: 'utf8' }).stderr).toMatch(
      /Unknown key 'Restartt'/,
    );
  });
});

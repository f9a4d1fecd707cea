import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOrCreateNodeKeys } from '../../keys/node-keys.js';
import { run, SVC, SVC_NODE } from '../helpers/cli.js';
import { tempDir } from '../helpers/test-node.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function dir(): string {
  const d = tempDir();
  dirs.push(d);
  return d;
}

describe('operator keys', () => {
  it('are sealed with a passphrase, refused without it or with a wrong one, and never readable by others', async () => {
    const d = dir();
    const data = join(d, 'data');
    const pass = join(d, 'pass.txt');
    writeFileSync(pass, 'correct horse battery staple\n');
    const init = await run(SVC_NODE, ['init', '--data-dir', data, '--passphrase-file', pass]);
    expect(init.code).toBe(0);
    const operator = /operator +(svc1[0-9a-f]{40})/.exec(init.stdout)![1]!;
    const file = join(data, 'keys', 'operator.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(stored).toMatchObject({ address: operator, crypto: { kdf: 'scrypt', cipher: 'aes-256-gcm' } });
    expect(stored.secretKey).toBeUndefined();
    expect(readFileSync(file, 'utf8')).not.toMatch(/[0-9a-f]{64}"\s*}\s*$/);

    const locked = await run(SVC_NODE, ['keys', '--data-dir', data], { SVC_KEY_PASSPHRASE: '' });
    expect(locked.code).toBe(1);
    expect(locked.stderr).toMatch(/operator\.json is encrypted: give its passphrase/);
    const wrong = await run(SVC_NODE, ['keys', '--data-dir', data], { SVC_KEY_PASSPHRASE: 'nope' });
    expect(wrong.stderr).toMatch(/wrong passphrase/);
    const opened = await run(SVC_NODE, ['keys', 'operator', '--data-dir', data], {
      SVC_KEY_PASSPHRASE: 'correct horse battery staple',
    });
    expect(opened.stdout.trim()).toBe(operator);
  });

  it('can be imported into a data dir, sealed when a passphrase is given, and are then held by the node', async () => {
    const d = dir();
    const data = join(d, 'data');
    const keyFile = join(d, 'me.json');
    const created = await run(SVC, ['keys', 'new', '--out', keyFile, '--json']);
    const address = (JSON.parse(created.stdout) as { address: string }).address;
    const imported = await run(SVC_NODE, ['keys', 'import', keyFile, '--data-dir', data, '--json'], {
      SVC_KEY_PASSPHRASE: 'pw',
    });
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toEqual({ imported: address, encrypted: true });
    const sealed = join(data, 'keys', 'operators', `${address}.json`);
    expect(statSync(sealed).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(sealed, 'utf8'))).toHaveProperty('crypto');
    const listed = await run(SVC_NODE, ['keys', '--data-dir', data, '--json'], { SVC_KEY_PASSPHRASE: 'pw' });
    expect(JSON.parse(listed.stdout)).toMatchObject({ imported: [address] });
    const keys = await loadOrCreateNodeKeys(data, 'pw');
    expect(keys.operators.has(address)).toBe(true);
    expect(keys.operators.has(keys.operator.address)).toBe(true);

    const bad = join(d, 'bad.txt');
    writeFileSync(bad, 'not a key');
    const refused = await run(SVC_NODE, ['keys', 'import', bad, '--data-dir', data]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/expected 32 bytes of hex/);
  });
});

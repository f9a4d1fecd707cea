import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cidOf } from '../../objects/profile.js';
import { cidOfBytes, MAX_SMALL_CID_BYTES } from '../../objects/small-cid.js';
import { patternBytes, referenceCid } from '../helpers/unixfs-reference.js';

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/**
 * Known CIDs under the `unixfs-v1-2025` profile. `hello world` is IPIP-499's own test vector for the
 * profile; the empty file's is the well-known CIDv1 of no bytes (a raw leaf of sha2-256 of nothing).
 * The pattern files (byte i = (i × 31 + 7) mod 256) were computed with the hand-built reference in
 * test/helpers/unixfs-reference.ts, which follows the UnixFS spec and shares no code with the
 * importer; they pin the one-chunk edge (1 MiB), the first two-chunk file (1 MiB + 1) and a
 * multi-chunk file.
 */
const FIXTURES: [string, Uint8Array, string][] = [
  [
    'hello world (IPIP-499)',
    new TextEncoder().encode('hello world'),
    'bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e',
  ],
  ['0 B', new Uint8Array(0), 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku'],
  ['1 B', patternBytes(1), 'bafkreigkgwdvr5wspzwpiutssn4xpj2i7wedshnwphhnu7ohx4pqaxxipe'],
  ['1 MiB', patternBytes(1_048_576), 'bafkreiagw657w6bevibtqicrneldb2zg32crali3bcub5ed6yb2ezwfcqy'],
  ['1 MiB + 1', patternBytes(1_048_577), 'bafybeidon4jwaruhu3izqvdmaft7grbvt5crriyc2yzkvyuocox565adwu'],
  ['5 MiB + 123', patternBytes(5 * 1_048_576 + 123), 'bafybeifbkwsebjpjexbc4caipolm3jgtdfp7p4bb7lhyg4axiauizsn3ka'],
];

describe('object CIDs (unixfs-v1-2025)', () => {
  it.each(FIXTURES)('%s: the known CID, whatever the upload chunks are', async (_name, bytes, expected) => {
    for (const chunk of [1, 65_536, 1_000_003]) {
      if (chunk === 1 && bytes.length > 4096) continue;
      expect((await cidOf(chunked(bytes, chunk))).cid.toString()).toBe(expected);
    }
    expect(await referenceCid(bytes)).toBe(expected);
    expect(cidOfBytes(bytes)).toBe(expected);
  });

  it('matches the independent reference on random sizes', async () => {
    for (let i = 0; i < 10; i++) {
      const bytes = randomBytes(Math.floor(Math.random() * 4 * 1_048_576));
      expect((await cidOf(chunked(bytes, 50_000))).cid.toString()).toBe(await referenceCid(bytes));
    }
  });

  it('is the same worked out synchronously (for checks inside a block), up to its 1 GiB bound', async () => {
    for (const size of [0, 1, 1_048_575, 1_048_576, 1_048_577, 2 * 1_048_576, 3 * 1_048_576 + 17]) {
      const bytes = randomBytes(size);
      expect(cidOfBytes(bytes), `${size} bytes`).toBe((await cidOf(chunked(bytes, 65_536))).cid.toString());
    }
    expect(() => cidOfBytes(new Uint8Array(MAX_SMALL_CID_BYTES + 1))).toThrow(RangeError);
  });
});

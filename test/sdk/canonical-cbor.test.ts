import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { decode as cborgDecode, encode as cborgEncode } from 'cborg';
import { decodeCanonical, decodeCanonicalViews, encodeCanonical } from '../../sdk/canonical-cbor.js';

/** A small deterministic generator (xorshift), so a failure names a seed that reproduces it. */
function generator(seed: number): () => number {
  // Small seeds spread over the state first: xorshift's first outputs from them are tiny.
  let x = (Math.imul(seed, 0x9e3779b1) ^ 0x85ebca6b) >>> 0 || 1;
  const next = (): number => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
  for (let i = 0; i < 8; i++) next();
  return next;
}

const BOUNDARY_INTEGERS = [
  0,
  1,
  23,
  24,
  255,
  256,
  65535,
  65536,
  2 ** 32 - 1,
  2 ** 32,
  2 ** 53 - 1,
  -1,
  -24,
  -25,
  -256,
  -257,
  -65536,
  -65537,
  -(2 ** 32),
  -(2 ** 32) - 1,
  -(2 ** 53) + 1,
];
const ODD_VALUES: unknown[] = [
  1.5,
  -0,
  NaN,
  Infinity,
  2 ** 53,
  -(2 ** 53),
  12n,
  -(2n ** 70n),
  undefined,
  new Map([['a', 1]]),
  'héllo',
  'snow ☃',
  '\uD800',
];

function randomValue(next: () => number, depth: number, odd: boolean): unknown {
  const pick = Math.floor(next() * (depth > 3 ? 6 : 9));
  switch (pick) {
    case 0:
      return (
        BOUNDARY_INTEGERS[Math.floor(next() * BOUNDARY_INTEGERS.length)]! + (next() < 0.5 ? 0 : Math.floor(next() * 3))
      );
    case 1:
      return Math.floor((next() - 0.5) * 2 ** Math.floor(next() * 54));
    case 2: {
      const length = Math.floor(next() * (next() < 0.2 ? 300 : 40));
      return Array.from({ length }, () => String.fromCharCode(32 + Math.floor(next() * 95))).join('');
    }
    case 3:
      return Uint8Array.from({ length: Math.floor(next() * (next() < 0.1 ? 70_000 : 50)) }, () =>
        Math.floor(next() * 256),
      );
    case 4:
      return [true, false, null][Math.floor(next() * 3)];
    case 5:
      return odd && next() < 0.3
        ? ODD_VALUES[Math.floor(next() * ODD_VALUES.length)]
        : `0x${Math.floor(next() * 1e15).toString(16)}`;
    case 6:
      return Array.from({ length: Math.floor(next() * 6) }, () => randomValue(next, depth + 1, odd));
    default: {
      const record: Record<string, unknown> = {};
      const keys = Math.floor(next() * 8);
      for (let i = 0; i < keys; i++)
        record[
          Math.floor(next() * 1e6)
            .toString(36)
            .slice(0, 1 + Math.floor(next() * 6))
        ] = randomValue(next, depth + 1, odd);
      return record;
    }
  }
}

/** The same outcome from both: equal values (byte strings as plain Uint8Array), or both throwing. */
function outcome(run: () => unknown): { value?: unknown; threw?: true } {
  try {
    return { value: run() };
  } catch {
    return { threw: true };
  }
}

describe('the canonical CBOR fast path', () => {
  it('encodes every value to the very bytes cborg gives', () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const value = randomValue(generator(seed), 0, seed % 3 === 0);
      const hex = (encode: (v: unknown) => Uint8Array) => () => Buffer.from(encode(value)).toString('hex');
      expect(outcome(hex(encodeCanonical)), `seed ${seed}`).toStrictEqual(outcome(hex(cborgEncode)));
    }
  });

  it('orders map keys shortest first, then bytewise, and gives a plain Uint8Array of its own', () => {
    const bytes = encodeCanonical({ bb: 1, a: 2, ab: 3, c: { z: [], y: new Uint8Array([1]) } });
    expect(Object.keys(cborgDecode(bytes) as object)).toEqual(['a', 'c', 'ab', 'bb']);
    expect(bytes.constructor).toBe(Uint8Array);
    expect(bytes.byteLength).toBe(bytes.buffer.byteLength);
    // A second encoding does not touch the first one's bytes.
    const copy = Uint8Array.from(bytes);
    encodeCanonical({ other: 'x'.repeat(100) });
    expect(bytes).toEqual(copy);
  });

  it('orders the keys of records that share a first key, recur in another order, or never recur, as cborg does', () => {
    const records: Record<string, unknown>[] = [
      { kind: 1, b: 2, aa: 3 },
      { kind: 1, aa: 3, b: 2 },
      { kind: 1, b: 2, zz: 3 },
      { kind: 1, b: 2 },
      { b: 2, kind: 1, aa: 3 },
      // More shapes under one first key than are kept, and more first keys: each still in order.
      ...Array.from({ length: 40 }, (_, i) => ({ kind: i, [`k${i}`]: i, [`x${40 - i}`]: 'v', a: [] })),
      ...Array.from({ length: 1200 }, (_, i) => ({ [`first${i}`]: i, b: i, [`${i}`]: 'z' })),
    ];
    for (let pass = 0; pass < 2; pass++)
      for (const record of records)
        expect(Buffer.from(encodeCanonical(record)).toString('hex'), JSON.stringify(record)).toBe(
          Buffer.from(cborgEncode(record)).toString('hex'),
        );
  });

  it('decodes every encoding to what cborg decodes it to, byte strings copied out of the input', () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const bytes = cborgEncode(randomValue(generator(seed), 0, false));
      const ours = decodeCanonical(Buffer.from(bytes));
      const theirs = cborgDecode(bytes, { useMaps: false });
      if (!isDeepStrictEqual(ours, theirs)) expect(ours, `seed ${seed}`).toStrictEqual(theirs);
    }
    for (const odd of ODD_VALUES.filter((v) => v !== -(2n ** 70n))) {
      const bytes = cborgEncode([odd, { odd }]);
      expect(decodeCanonical(bytes)).toStrictEqual(cborgDecode(bytes, { useMaps: false }));
    }
    const input = cborgEncode({ b: new Uint8Array([1, 2, 3]) });
    const decoded = decodeCanonical(input) as { b: Uint8Array };
    expect(decoded.b.constructor).toBe(Uint8Array);
    input.fill(0);
    expect([...decoded.b]).toEqual([1, 2, 3]);
  });

  it('accepts and refuses malformed and unusual input exactly as cborg does', () => {
    const cases: Uint8Array[] = [
      new Uint8Array(0),
      Uint8Array.from([0x18]), // a head cut short
      Uint8Array.from([0x01, 0x02]), // a value and then more
      Uint8Array.from([0x18, 0x05]), // a small integer in a longer form than needed
      Uint8Array.from([0x9f, 0x01, 0xff]), // an indefinite-length array
      Uint8Array.from([0xa1, 0x01, 0x02]), // a map with a number for a key
      Uint8Array.from([0xa2, 0x61, 0x61, 0x01, 0x61, 0x61, 0x02]), // the same key twice
      Uint8Array.from([0xa1, 0x69, ...Buffer.from('__proto__'), 0xa1, 0x61, 0x78, 0x01]),
      Uint8Array.from([0x1b, 0x00, 0x20, 0, 0, 0, 0, 0, 0]), // 2^53: a bigint
      Uint8Array.from([0x3b, 0x00, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), // -2^53: a bigint
      Uint8Array.from([0xc1, 0x01]), // a tag
      Uint8Array.from([0xf9, 0x3c, 0x00]), // a float
      Uint8Array.from([0x63, 0xef, 0xbb, 0xbf]), // a byte-order mark alone
      Uint8Array.from([0x62, 0xc3, 0x28]), // invalid UTF-8
      Uint8Array.from([0x9b, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00]), // a length far beyond the input
    ];
    const next = generator(7);
    for (let i = 0; i < 1000; i++) {
      const valid = cborgEncode(randomValue(next, 1, false));
      cases.push(valid.subarray(0, Math.floor(next() * valid.length)));
      const flipped = Uint8Array.from(valid);
      const at = Math.floor(next() * flipped.length);
      flipped[at] = flipped[at]! ^ (1 << Math.floor(next() * 8));
      cases.push(flipped);
    }
    for (const bytes of cases) {
      const ours = outcome(() => decodeCanonical(bytes));
      const theirs = outcome(() => cborgDecode(bytes, { useMaps: false }));
      // vitest's deep equality is slow over thousands of values: it only reports what node's finds.
      if (!isDeepStrictEqual(ours, theirs)) expect(ours, Buffer.from(bytes).toString('hex')).toStrictEqual(theirs);
    }
  });

  it('hands cycles and class instances to cborg, with its result or its error', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => encodeCanonical(cyclic)).toThrow();
    class Point {
      x = 1;
      y = 'two';
    }
    expect(encodeCanonical(new Point())).toEqual(cborgEncode(new Point()));
  });
});

describe('decoding with views', () => {
  it('gives what decode gives, its byte strings views of the input, and decode after it copies again', () => {
    const entries = [
      ['accounts/a', new Uint8Array([1, 2, 3])],
      ['evm/code/b', new Uint8Array(300).fill(7)],
    ];
    const bytes = encodeCanonical(entries);
    const viewed = decodeCanonicalViews(bytes) as [string, Uint8Array][];
    expect(viewed).toEqual(decodeCanonical(bytes));
    for (const [, value] of viewed) expect(value.buffer).toBe(bytes.buffer);
    // The mode ends with the call: a plain decode copies.
    for (const [, value] of decodeCanonical(bytes) as [string, Uint8Array][])
      expect(value.buffer).not.toBe(bytes.buffer);
  });
});

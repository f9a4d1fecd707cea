import { describe, expect, it } from 'vitest';
import { contradicts, sniffMedia } from '../../objects/sniff.js';
import { media } from '../helpers/media.js';

describe('media sniffing', () => {
  it('tells images, videos and documents by their bytes, and plain text as a document', async () => {
    expect(await sniffMedia(media.png(5000), false)).toEqual({ mediaType: 'image/png', format: 'image' });
    expect(await sniffMedia(media.mp4(5000), false)).toEqual({ mediaType: 'video/mp4', format: 'video' });
    expect(await sniffMedia(media.pdf(5000), false)).toEqual({ mediaType: 'application/pdf', format: 'document' });
    expect(await sniffMedia(new TextEncoder().encode('# notes\nplain text, ünïcode'), true)).toEqual({
      mediaType: 'text/plain; charset=utf-8',
      format: 'document',
    });
    // A WebAssembly module (the code of a compute job) is a document too.
    expect(await sniffMedia(Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), true)).toEqual({
      mediaType: 'application/wasm',
      format: 'document',
    });
  });

  it('serves nothing it cannot name: executables, unknown binary, empty objects', async () => {
    expect(await sniffMedia(media.elf(5000), false)).toBeUndefined();
    expect(await sniffMedia(Uint8Array.from([0, 1, 2, 255, 254, 0, 9]), true)).toBeUndefined();
    expect(await sniffMedia(new Uint8Array(0), true)).toBeUndefined();
  });

  it('accepts a head cut inside a multi-byte character, not a whole object that ends in one', async () => {
    const text = new TextEncoder().encode(`${'é'.repeat(2500)}`);
    expect(await sniffMedia(text.subarray(0, 4101), false)).toMatchObject({ format: 'document' });
    expect(await sniffMedia(text.subarray(0, 4101), true)).toBeUndefined();
  });

  it('finds a declared type the bytes contradict', () => {
    const png = { mediaType: 'image/png', format: 'image' } as const;
    const pdf = { mediaType: 'application/pdf', format: 'document' } as const;
    expect(contradicts(undefined, png)).toBe(false);
    expect(contradicts('application/octet-stream', png)).toBe(false);
    expect(contradicts('application/x-www-form-urlencoded', png)).toBe(false);
    expect(contradicts('image/jpeg', png)).toBe(false);
    expect(contradicts('image/png', pdf)).toBe(true);
    expect(contradicts('video/mp4', png)).toBe(true);
    expect(contradicts('application/pdf; charset=binary', pdf)).toBe(false);
    expect(contradicts('text/plain', pdf)).toBe(false);
    expect(contradicts('application/zip', pdf)).toBe(true);
  });
});

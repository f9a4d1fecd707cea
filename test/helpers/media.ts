import { crc32, deflateSync } from 'node:zlib';
import { patternBytes } from './unixfs-reference.js';

/** A PNG signature and IHDR chunk: what makes bytes sniff as image/png. */
const PNG_HEAD = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const MP4_HEAD = Buffer.from('0000001c6674797069736f6d0000020069736f6d69736f326d703431', 'hex');
const ELF_HEAD = Buffer.from('7f454c4602010100', 'hex');

const headed = (head: Buffer, size: number): Buffer =>
  Buffer.concat([head, Buffer.from(patternBytes(Math.max(0, size - head.length)))]);

/** A PNG whose pixel data (one IDAT chunk, its CRC not checked) fills it to `size`. */
function png(size: number): Buffer {
  const data = Math.max(0, size - PNG_HEAD.length - 12);
  const idat = Buffer.alloc(8);
  idat.writeUInt32BE(data, 0);
  idat.write('IDAT', 4);
  return Buffer.concat([PNG_HEAD, idat, Buffer.from(patternBytes(data)), Buffer.alloc(4)]).subarray(
    0,
    Math.max(size, PNG_HEAD.length + 12),
  );
}

/** Bytes of `size` that sniff as an image (PNG), a video (MP4), a document (PDF) or an executable (ELF). */
export const media = {
  png,
  mp4: (size: number): Buffer => headed(MP4_HEAD, size),
  pdf: (size: number): Buffer => headed(Buffer.from('%PDF-1.7\n'), size),
  elf: (size: number): Buffer => headed(ELF_HEAD, size),
};

/** A PNG a browser decodes: `width` × `height` pixels of a colour gradient (8-bit RGB, one IDAT). */
export function decodablePng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'ascii');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows: number[] = [];
  for (let y = 0; y < height; y++) {
    rows.push(0);
    for (let x = 0; x < width; x++) rows.push((x * 255) / width, (y * 255) / height, 160);
  }
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

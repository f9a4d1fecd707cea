import { toHex } from '../../sdk/bytes.js';

const ERROR_STRING = '0x08c379a0';
const PANIC = '0x4e487b71';

/** What Solidity's panic codes mean (the compiler's documented list). */
const PANICS: Record<number, string> = {
  0x00: 'generic compiler panic',
  0x01: 'assertion failed',
  0x11: 'arithmetic overflow or underflow',
  0x12: 'division or modulo by zero',
  0x21: 'conversion to an invalid enum value',
  0x22: 'incorrectly encoded storage byte array',
  0x31: 'pop() on an empty array',
  0x32: 'array index out of bounds',
  0x41: 'too much memory allocated',
  0x51: 'call to a zero-initialized internal function',
};

const word = (data: Uint8Array, at: number): bigint | undefined =>
  data.length >= at + 32 ? BigInt(toHex(data.subarray(at, at + 32))) : undefined;

/**
 * `Error(string)`'s message: the ABI encoding of one string after the selector (an offset word, a
 * length word, the bytes). Two fixed layouts are decoded here rather than loading an ABI library into
 * every node for them; anything malformed is undefined.
 */
function errorString(data: Uint8Array): string | undefined {
  const offset = word(data, 4);
  if (offset === undefined || offset > BigInt(data.length)) return undefined;
  const length = word(data, 4 + Number(offset));
  const start = 4 + Number(offset) + 32;
  if (length === undefined || BigInt(start) + length > BigInt(data.length)) return undefined;
  return new TextDecoder().decode(data.subarray(start, start + Number(length)));
}

/**
 * A human reason for revert data: `Error(string)`'s message, a `Panic(uint256)`'s meaning, or the
 * selector of a custom error (decoding one needs its ABI: the SDK's `readContract` does).
 */
export function revertReason(data: Uint8Array): string {
  if (data.length === 0) return 'execution reverted';
  const selector = toHex(data.subarray(0, 4));
  if (selector === ERROR_STRING) {
    const message = errorString(data);
    if (message !== undefined) return `execution reverted: ${message}`;
  }
  if (selector === PANIC && data.length === 36) {
    const code = Number(word(data, 4)!);
    return `execution reverted: panic 0x${code.toString(16).padStart(2, '0')} (${PANICS[code] ?? 'unknown panic code'})`;
  }
  return data.length >= 4 ? `execution reverted: custom error ${selector}` : 'execution reverted';
}

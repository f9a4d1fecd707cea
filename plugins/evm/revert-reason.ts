import { decodeAbiParameters } from 'viem';
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

/**
 * A human reason for revert data: `Error(string)`'s message, a `Panic(uint256)`'s meaning, or the
 * selector of a custom error (decoding one needs its ABI: the SDK's `readContract` does).
 */
export function revertReason(data: Uint8Array): string {
  const hex = toHex(data);
  if (data.length === 0) return 'execution reverted';
  try {
    if (hex.startsWith(ERROR_STRING)) return `execution reverted: ${decodeAbiParameters([{ type: 'string' }], `0x${hex.slice(10)}`)[0]}`;
    if (hex.startsWith(PANIC)) {
      const code = Number(decodeAbiParameters([{ type: 'uint256' }], `0x${hex.slice(10)}`)[0]);
      return `execution reverted: panic 0x${code.toString(16).padStart(2, '0')} (${PANICS[code] ?? 'unknown panic code'})`;
    }
  } catch {
    // Data that only starts like a standard error: report its selector.
  }
  return data.length >= 4 ? `execution reverted: custom error ${hex.slice(0, 10)}` : 'execution reverted';
}

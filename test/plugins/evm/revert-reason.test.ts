import { describe, expect, it } from 'vitest';
import { encodeErrorResult, parseAbi } from 'viem';
import { revertReason } from '../../../plugins/evm/revert-reason.js';
import { fromHex } from '../../../sdk/bytes.js';

const abi = parseAbi(['error Error(string)', 'error Panic(uint256)', 'error Custom(uint256 code)']);

describe('revert reasons', () => {
  it('decodes Error(string) and Panic(uint256) as the ABI encodes them, and names a custom error by its selector', () => {
    for (const message of ['no way', '', 'ünïcödé ✓', 'x'.repeat(100)]) {
      expect(revertReason(fromHex(encodeErrorResult({ abi, errorName: 'Error', args: [message] })))).toBe(
        `execution reverted: ${message}`,
      );
    }
    expect(revertReason(fromHex(encodeErrorResult({ abi, errorName: 'Panic', args: [0x12n] })))).toBe(
      'execution reverted: panic 0x12 (division or modulo by zero)',
    );
    expect(revertReason(fromHex(encodeErrorResult({ abi, errorName: 'Custom', args: [7n] })))).toMatch(
      /^execution reverted: custom error 0x[0-9a-f]{8}$/,
    );
    expect(revertReason(new Uint8Array(0))).toBe('execution reverted');
  });

  it('reads malformed data as a custom error, never past its end', () => {
    const truncated = fromHex(encodeErrorResult({ abi, errorName: 'Error', args: ['no way'] })).subarray(0, 50);
    expect(revertReason(truncated)).toBe('execution reverted: custom error 0x08c379a0');
    const lying = fromHex(encodeErrorResult({ abi, errorName: 'Error', args: ['no way'] }));
    lying[4 + 63] = 0xff;
    expect(revertReason(lying)).toBe('execution reverted: custom error 0x08c379a0');
  });
});

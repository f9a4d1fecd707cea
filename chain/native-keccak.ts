import { createRequire } from 'node:module';
import { dirname } from 'node:path';

interface KeccakState {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  absorbLastFewBits(bits: number): void;
  squeeze(length: number): Buffer;
}

/**
 * The `keccak` package's prebuilt sponge (shipped in the npm package), undefined where it does not
 * load. Used bare: the package's own hasher is a stream, whose construction cost more than hashing
 * 32 bytes.
 */
const keccakState: KeccakState | undefined = (() => {
  try {
    const keccakPackage = createRequire(import.meta.url).resolve('keccak/package.json');
    // node-gyp-build as keccak itself loads it (its dependency, wherever npm put it).
    const State = (createRequire(keccakPackage)('node-gyp-build') as (dir: string) => new () => KeccakState)(
      dirname(keccakPackage),
    );
    return new State();
  } catch {
    return undefined;
  }
})();

/**
 * Keccak-256 (rate 1088, capacity 512, Keccak's padding bit 0x01) in native code, where the binary
 * loads: ~1 µs for a transaction's bytes where JavaScript takes ~15. One sponge per thread: a hash
 * runs to its end synchronously, so runs never share it midway.
 */
export const nativeKeccak256: ((message: Uint8Array) => Uint8Array) | undefined = keccakState
  ? (message) => {
      keccakState.initialize(1088, 512);
      keccakState.absorb(Buffer.from(message.buffer, message.byteOffset, message.byteLength));
      keccakState.absorbLastFewBits(0x01);
      return keccakState.squeeze(32);
    }
  : undefined;

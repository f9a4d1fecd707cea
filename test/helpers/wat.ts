import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import wabtFactory from 'wabt';

const wabt = await wabtFactory();

/** Compiles WAT text to a WebAssembly binary (wabt, with the SIMD proposal on so refusals can be tested). */
export function wat(text: string, name = 'fixture.wat'): Uint8Array {
  const module = wabt.parseWat(name, text, { simd: true, bulk_memory: true, mutable_globals: true });
  try {
    return Uint8Array.from(module.toBinary({}).buffer);
  } finally {
    module.destroy();
  }
}

/** A fixture from test/jobs/fixtures, compiled. */
export function fixture(name: string): Uint8Array {
  const path = fileURLToPath(new URL(`../jobs/fixtures/${name}.wat`, import.meta.url));
  return wat(readFileSync(path, 'utf8'), `${name}.wat`);
}

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** The `upper` job module the benchmarks submit, built from examples/jobs/upper.wat by the wabt dev dependency. */
export async function upperModule(): Promise<Uint8Array> {
  const { default: wabt } = (await import('wabt')) as unknown as {
    default: () => Promise<{ parseWat(name: string, text: string): { toBinary(o: object): { buffer: Uint8Array } } }>;
  };
  return (await wabt()).parseWat('upper.wat', readFileSync(`${root}/examples/jobs/upper.wat`, 'utf8')).toBinary({})
    .buffer;
}

import { inject } from 'vitest';
import { compileSolidity, type Artifacts } from '../../scripts/solidity.js';

export type { Artifact, Artifacts } from '../../scripts/solidity.js';

/** The precompiles' interfaces and example (contracts), the example contracts users get (examples/contracts) and the tests' own (test/fixtures/contracts). */
const SOURCES = ['contracts', 'examples/contracts', 'test/fixtures/contracts'];

/** Compiles the contracts the tests deploy: once per test run (the global setup). */
export function compileFixtures(): Promise<Artifacts> {
  return compileSolidity(SOURCES);
}

declare module 'vitest' {
  export interface ProvidedContext {
    contracts: Artifacts;
  }
}

/** The fixtures the global setup compiled for this run. */
export function contracts(): Artifacts {
  return inject('contracts');
}

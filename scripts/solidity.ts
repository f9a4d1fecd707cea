import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** A compiled contract: its ABI and creation bytecode (0x hex). */
export interface Artifact {
  readonly abi: readonly Record<string, unknown>[];
  readonly bytecode: `0x${string}`;
}

export type Artifacts = Readonly<Record<string, Artifact>>;

/**
 * Compiles every `.sol` file in `dirs` with solc-js (a dev dependency: the tests, the benchmarks
 * and the e2e runner use it) for its default target (Osaka, the chain's hardfork), optimized.
 * solc takes seconds to load: compile once per run.
 */
export async function compileSolidity(dirs: readonly string[]): Promise<Artifacts> {
  const { default: solc } = (await import('solc')) as unknown as { default: { compile(input: string): string } };
  const sources = Object.fromEntries(
    dirs.flatMap((dir) =>
      readdirSync(dir)
        .filter((f) => f.endsWith('.sol'))
        .map((f) => [f, { content: readFileSync(join(dir, f), 'utf8') }]),
    ),
  );
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<
      string,
      Record<string, { abi: Record<string, unknown>[]; evm: { bytecode: { object: string } } }>
    >;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  const artifacts: Record<string, Artifact> = {};
  for (const file of Object.values(output.contracts))
    for (const [name, c] of Object.entries(file))
      artifacts[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  return artifacts;
}

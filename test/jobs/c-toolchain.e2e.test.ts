import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetKey, generateKeyPair, SvcClient, UNIT, type JobView } from '../../sdk/index.js';
import { startTestNode, tempDir, type TestNode } from '../helpers/test-node.js';
import { failure } from '../helpers/rpc-failure.js';
import { run, SVC } from '../helpers/cli.js';

// What docs/compute-jobs.md tells a user of Debian's packages (clang, lld, wasi-libc) to run. The slow
// tier needs them (.ci/run installs them) and, as the browser tests do without Chromium, fails saying
// what to install rather than skip.
/** Why Debian's WASI toolchain cannot build a program here, or null when it can. */
function toolchainMissing(): string | null {
  if (!existsSync('/usr/bin/clang')) return 'clang is not installed';
  const dir = tempDir();
  writeFileSync(join(dir, 'empty.c'), 'int main(void) { return 0; }\n');
  try {
    execFileSync('/usr/bin/clang', ['--target=wasm32-wasi', '-o', join(dir, 'empty.wasm'), join(dir, 'empty.c')], {
      stdio: 'pipe',
    });
    return null;
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error).trim();
  }
}
const missing = toolchainMissing();

const WORD_COUNT = `
#include <assert.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
  long words = 0; int inside = 0, c;
  while ((c = getchar()) != EOF) {
    if (c == ' ' || c == '\\n' || c == '\\t') inside = 0;
    else if (!inside) { inside = 1; words++; }
  }
  printf("%ld words, %d args, last \\"%s\\"\\n", words, argc, argv[argc - 1]);
  if (argc > 1 && strcmp(argv[1], "assert") == 0) assert(words == 0);
  return argc > 1 && strcmp(argv[1], "exit") == 0 ? 3 : 0;
}
`;

// Sums with a loop clang vectorises once SIMD is allowed.
const VECTORISED = `
#include <stdio.h>
int main(void) {
  static int v[1024];
  int sum = 0;
  for (int i = 0; i < 1024; i++) v[i] = i * 3;
  for (int i = 0; i < 1024; i++) sum += v[i];
  printf("%d\\n", sum);
  return 0;
}
`;

/** Compiles C source with Debian's clang as docs/compute-jobs.md says; returns the module's bytes. */
function compile(dir: string, name: string, source: string, flags: string[]): Uint8Array {
  const file = join(dir, `${name}.c`);
  writeFileSync(file, source);
  const out = join(dir, `${name}.wasm`);
  execFileSync('/usr/bin/clang', ['--target=wasm32-wasi', ...flags, '-o', out, file], { stdio: 'pipe' });
  return readFileSync(out);
}

const INLINE_CODE_LIMIT = 192 * 1024;
let node: TestNode;
let client: SvcClient;
let dir: string;
const requester = generateKeyPair();

describe("a C program built with Debian's clang and wasi-libc", () => {
  beforeAll(async () => {
    if (missing !== null)
      throw new Error(
        `Debian's WASI toolchain cannot build here (apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32, as .ci/run does): ${missing}`,
      );
    dir = tempDir();
    // One validator: the devnet's genesis makes it its compute provider.
    node = await startTestNode({ validator: { blockTime: 100 } });
    client = new SvcClient(node.url);
    expect((await client.oonNodeStatus()).status).toBe('active');
    await client.waitForTransaction(
      (await client.transfer(devnetKey('account', 1), requester.address, 'OMC', 100n * UNIT)).hash,
    );
  }, 120_000);
  afterAll(async () => {
    await node?.stop();
  });

  it('runs stripped, as docs/compute-jobs.md submits it: its output and args, an exit code, and a failed assert as trap:unreachable with its message in the log', async () => {
    const code = compile(dir, 'words', WORD_COUNT, ['-O2', '-s']);
    expect(code.length).toBeLessThan(INLINE_CODE_LIMIT);
    // Stripping removes wasi-libc's debug info, most of an unstripped module.
    expect(code.length).toBeLessThan(compile(dir, 'words-unstripped', WORD_COUNT, ['-O2']).length / 2);
    const inputFile = join(dir, 'input.txt');
    writeFileSync(inputFile, 'one two  three\nfour, five');
    const submitted = await run(SVC, [
      '--url',
      node.url,
      'job',
      'submit',
      '--code',
      join(dir, 'words.wasm'),
      '--input',
      `@${inputFile}`,
      '--arg',
      'first',
      '--arg',
      'second, with a comma',
      '--gas-limit',
      '10000000',
      '--dev-account',
      '2',
      '--wait',
      '--json',
    ]);
    expect(submitted.code, `svc job submit: ${submitted.stderr}`).toBe(0);
    const plain = JSON.parse(submitted.stdout) as JobView;
    expect(plain).toMatchObject({ status: 'finalized', exit: 'exit:0' });
    expect(Buffer.from(plain.output!.slice(2), 'hex').toString()).toBe(
      '5 words, 3 args, last "second, with a comma"\n',
    );
    // One wallet: submitted one after the other (nonces), waited for together.
    const input = new TextEncoder().encode('no words? four');
    const jobIds: string[] = [];
    for (const args of [
      ['words', 'exit'],
      ['words', 'assert'],
    ])
      jobIds.push(
        (await client.submitJob(requester, { runtime: 'wasm', code, input, args, gasLimit: 10_000_000n, gasPrice: 1n }))
          .jobId,
      );
    const [exited, asserted] = await Promise.all(
      jobIds.map((jobId) => client.waitForJob(jobId, { timeoutMs: 60_000 })),
    );
    expect(exited).toMatchObject({ status: 'finalized', exit: 'exit:3' });
    expect(asserted).toMatchObject({ status: 'finalized', exit: 'trap:unreachable' });
    const log = await run(SVC, ['--url', node.url, 'job', 'output', asserted!.jobId, '--log']);
    expect(log.stdout).toMatch(/^Assertion failed: words == 0 \(.*words\.c: main: \d+\)\n$/);
  }, 120_000);

  it('is refused at submission when clang vectorised it with SIMD, naming the feature', async () => {
    const code = compile(dir, 'sum', VECTORISED, ['-O3', '-msimd128', '-s']);
    const refused = await failure(
      client.submitJob(requester, { runtime: 'wasm', code, gasLimit: 10_000_000n, gasPrice: 1n }),
    );
    expect({ message: refused.message, feature: refused.data?.feature }).toEqual({
      message: 'job_rejected',
      feature: 'SIMD',
    });
    // The same source without -msimd128 runs: -O3 alone does not vectorise for wasm32.
    const { jobId } = await client.submitJob(requester, {
      runtime: 'wasm',
      code: compile(dir, 'sum-scalar', VECTORISED, ['-O3', '-s']),
      gasLimit: 10_000_000n,
      gasPrice: 1n,
    });
    const job = await client.waitForJob(jobId, { timeoutMs: 60_000 });
    expect({ exit: job.exit, output: Buffer.from(job.output!.slice(2), 'hex').toString() }).toEqual({
      exit: 'exit:0',
      output: `${(3 * 1023 * 1024) / 2}\n`,
    });
  }, 120_000);
});

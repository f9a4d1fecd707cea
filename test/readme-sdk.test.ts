import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, tempDir, type TestNode } from './helpers/test-node.js';

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode({ storage: 'memory', validator: { blockTime: 100 } });
});
afterAll(async () => {
  await node?.stop();
});

/** The fenced ts block after the `<!-- sdk:quickstart` marker. */
function quickstart(): string {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf('<!-- sdk:quickstart');
  expect(start, 'README marker sdk:quickstart').toBeGreaterThan(0);
  return /```ts\n([\s\S]*?)```/.exec(readme.slice(start))![1]!;
}

describe('README SDK snippet', () => {
  it('runs as written against a node (only the URL and the package path are substituted) and prints what its comments say', async () => {
    const source = quickstart()
      .replace("'svc-node/sdk'", JSON.stringify(pathToFileURL(resolve('dist/sdk/index.js')).href))
      .replace("'http://127.0.0.1:8545'", JSON.stringify(node.url));
    const js = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const file = join(tempDir(), 'quickstart.mjs');
    writeFileSync(file, js);
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (code) => done({ code, stdout, stderr }));
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('true\n10.000000000000000000 true\nsuccess true 2\n');
  });
});

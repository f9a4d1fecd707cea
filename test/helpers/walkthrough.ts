import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { SVC, SVC_NODE } from './cli.js';

/** The fenced sh block after `<!-- walkthrough:<name> -->` in a markdown file. */
export function walkthrough(markdownFile: string, name: string): string {
  const text = readFileSync(markdownFile, 'utf8');
  const start = text.indexOf(`<!-- walkthrough:${name} -->`);
  if (start < 0) throw new Error(`${markdownFile} has no <!-- walkthrough:${name} --> marker`);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(start));
  if (!block) throw new Error(`${markdownFile}: no sh block after walkthrough:${name}`);
  return block[1]!;
}

/** Runs a script as a reader would, with `svc` and `svc-node` being the built CLIs; strict mode. */
export function bash(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const prelude = `set -euo pipefail\nsvc() { node "${SVC}" "$@"; }\nsvc-node() { node "${SVC_NODE}" "$@"; }\n`;
    const child = spawn('bash', ['-c', `${prelude}${script}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** stderr without the lines a `--wait` prints before it waits (what it waits for): nothing else may be there. */
export const withoutWaits = (text: string): string =>
  text.replace(/^[a-z ]+ \S+ submitted; waiting \(Ctrl-C stops waiting, not the [a-z ]+\)\n/gm, '');

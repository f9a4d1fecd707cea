import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('docs/architecture.md', () => {
  it('names every top-level folder of the repository, and none that is not there', () => {
    const tracked = new Set(
      execFileSync('git', ['ls-files'], { encoding: 'utf8' })
        .split('\n')
        .filter((path) => path.includes('/') && !path.startsWith('.'))
        .map((path) => path.slice(0, path.indexOf('/'))),
    );
    const text = readFileSync('docs/architecture.md', 'utf8');
    const named = new Set([...text.matchAll(/(?:^|[\s`])([a-z][a-z0-9-]*)\/(?=[\s`)]|$)/gm)].map((m) => m[1]!));
    expect([...tracked].filter((folder) => !named.has(folder)).sort()).toEqual([]);
    // The layers' block lists only folders that exist.
    const block = /```\n([\s\S]*?)```/.exec(text)![1]!;
    const layers = [...block.matchAll(/^([a-z][a-z0-9]*)\/\s/gm)].map((m) => m[1]!);
    expect(layers.filter((folder) => !tracked.has(folder))).toEqual([]);
  });
});

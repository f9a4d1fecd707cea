import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../node/catalog.js';

/** The plugins every node loads whatever its config (node/presets.ts). */
const ALWAYS = ['keystore', 'chain', 'p2p'];

describe('README', () => {
  it("lists every plugin of the node's catalog, and no other, in its table of what the node does", () => {
    const readme = readFileSync('README.md', 'utf8');
    const table = readme.slice(readme.indexOf('| plugin | loaded on | what it does |'));
    const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2);
    const listed = rows.map((row) => /^\| `([a-z0-9-]+)` \|/.exec(row)?.[1]);
    expect(listed.every((name) => name !== undefined)).toBe(true);
    expect([...listed].sort()).toEqual([...ALWAYS, ...Object.keys(catalog.plugins)].sort());
  });
});

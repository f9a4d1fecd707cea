import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { START_FLAGS } from '../../node/flags.js';
import { run, SVC_NODE } from '../helpers/cli.js';

const readme = readFileSync('README.md', 'utf8');

/** The rows of the first README table after `marker` (its header and rule left out). */
function tableRows(marker: string): string[] {
  const after = readme.slice(readme.indexOf(marker));
  const table = after.slice(after.indexOf('\n|') + 1);
  return table.slice(0, table.indexOf('\n\n')).split('\n').slice(2);
}

/** What a cac `--help` lists under `section`: its first words (commands, or flags). */
function helpEntries(help: string, section: 'Commands' | 'Options'): string[] {
  const lines = help
    .slice(help.indexOf(`${section}:`))
    .split('\n')
    .slice(1);
  return lines
    .slice(
      0,
      lines.findIndex((line) => line.trim() === ''),
    )
    .map((line) => line.trim().split(/\s+/)[0]!.replace(/,$/, ''));
}

describe('README', () => {
  it("lists every svc-node command of the CLI's --help in its command table, with every init option", async () => {
    const help = (await run(SVC_NODE, ['--help'])).stdout;
    const commands = helpEntries(help, 'Commands');
    expect(commands.length).toBeGreaterThan(4);
    const rows = tableRows('## `svc-node` commands').filter((row) => row.startsWith('| `svc-node'));
    for (const command of commands)
      expect(
        rows.some((row) => row.startsWith(`| \`svc-node ${command}`)),
        command,
      ).toBe(true);
    const initRows = rows.filter((row) => row.startsWith('| `svc-node init')).join(' ');
    const initOptions = helpEntries((await run(SVC_NODE, ['init', '--help'])).stdout, 'Options').filter(
      (flag) => flag.startsWith('--') && flag !== '--help',
    );
    for (const flag of initOptions) expect(initRows, flag).toContain(flag);
  });

  it('lists every `svc-node start` flag in its options table, and no flag the node does not take', () => {
    const first = tableRows('### `svc-node start` options').map((row) => row.split('|')[1]!);
    const listed = new Set(first.flatMap((cell) => [...cell.matchAll(/--[a-z0-9-]+/g)].map((m) => m[0])));
    // --config is the start command's own: the file the others may also be set in.
    const taken = new Set(['--config', ...START_FLAGS.map((f) => f.flag)]);
    expect([...taken].filter((flag) => !listed.has(flag))).toEqual([]);
    expect([...listed].filter((flag) => !taken.has(flag))).toEqual([]);
  });

  it('links only to files the repository has', () => {
    const links = [...readme.matchAll(/\]\(((?!https?:|#)[^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(5);
    expect(links.filter((link) => !existsSync(link))).toEqual([]);
  });
});

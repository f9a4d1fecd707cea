import { cpSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The next release, as a test makes it: a copy of this build's dist/ whose rules registry lists
 * `version` too (sharing node_modules and package.json) — what a release that adds a rules version
 * is, through the same registry, with no switch in product code. Returns its `svc-node` entry.
 */
export function releaseWithRulesVersion(root: string, version: number): string {
  const dir = join(root, `release-${version}`);
  cpSync(resolve('dist'), join(dir, 'dist'), { recursive: true });
  cpSync(resolve('package.json'), join(dir, 'package.json'));
  symlinkSync(resolve('node_modules'), join(dir, 'node_modules'));
  const file = join(dir, 'dist/chain/rules-version.js');
  const source = readFileSync(file, 'utf8');
  const patched = source.replace(
    /(export const RULES_VERSIONS = \[\n(?: {4}\{[^\n]*\},\n)*)/,
    `$1    { version: ${version}, summary: 'a release after this one' },\n`,
  );
  if (patched === source)
    throw new Error('dist/chain/rules-version.js no longer lists RULES_VERSIONS one a line as the test expects');
  writeFileSync(file, patched);
  return join(dir, 'dist/bin/svc-node.js');
}

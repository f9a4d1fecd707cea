import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// The entries the build bundles (scripts/vendor-typebox.ts); kept here as text, since importing that
// script would run the build step.
const ENTRIES = ['typebox', 'typebox/compile', 'typebox/value'];

function files(dir: string, ending: RegExp, skip: readonly string[] = []): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return skip.includes(name) ? [] : files(path, ending, skip);
    return ending.test(path) ? [path] : [];
  });
}

const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](typebox[^'"]*)['"]/g;

describe('typebox, bundled into dist/vendor by the build', () => {
  it('is imported by the sources only through the entries the build bundles', () => {
    const roots = [
      'kernel',
      'jobs',
      'objects',
      'chain',
      'consensus',
      'p2p',
      'keys',
      'node',
      'plugins',
      'sdk',
      'bin',
      'scripts',
    ];
    const others = roots
      .flatMap((root) => files(root, /\.ts$/))
      .flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(SPECIFIERS)]
          .map((m) => m[1]!)
          .filter((specifier) => !ENTRIES.includes(specifier))
          .map((specifier) => `${file}: ${specifier}`),
      );
    expect(others).toEqual([]);
  });

  it('is what the compiled node loads: no file in dist/ imports the package itself', () => {
    const bare = files('dist', /\.js$/, ['vendor', 'ui']).filter(
      (file) => [...readFileSync(file, 'utf8').matchAll(SPECIFIERS)].length > 0,
    );
    expect(bare).toEqual([]);
    expect(readFileSync('dist/node/config-schema.js', 'utf8')).toContain("from '../vendor/typebox/index.js'");
  });

  it('builds, compiles and checks schemas with one shared copy across its entries', async () => {
    const vendor = (name: string) => pathToFileURL(join('dist/vendor/typebox', `${name}.js`)).href;
    const { default: Type } = (await import(vendor('index'))) as typeof import('typebox');
    const { Compile } = (await import(vendor('compile'))) as typeof import('typebox/compile');
    const { Value } = (await import(vendor('value'))) as typeof import('typebox/value');
    const schema = Type.Object({ name: Type.String({ minLength: 1 }), count: Type.Integer({ default: 1 }) });
    const check = Compile(schema);
    expect(check.Check({ name: 'a', count: 2 })).toBe(true);
    expect(check.Check({ name: '', count: 2 })).toBe(false);
    expect(Value.Default(schema, { name: 'a' })).toEqual({ name: 'a', count: 1 });
  });
});

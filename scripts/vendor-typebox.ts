// Bundles typebox into dist/vendor/ and points the compiled code at the bundle. typebox ships as ~700
// small ES modules, and loading them took a quarter of a node's start (about 0.25 s of 1.2 s on an idle
// machine, more on a busy one); one bundle loads in ~20 ms. Every process start pays it: the node, its
// CLIs, each restart. The sources import 'typebox' as usual (types, the tests run from source); only
// dist/ is rewritten. Run by `npm run build` after tsc; it rewrites only what changed, so an
// incremental build leaves current files untouched.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const dist = join(root, 'dist');
const vendor = join(dist, 'vendor', 'typebox');

/** The typebox entry points the sources import, and the bundle file each one becomes. */
export const TYPEBOX_ENTRIES: Readonly<Record<string, string>> = {
  typebox: 'index',
  'typebox/compile': 'compile',
  'typebox/value': 'value',
};

function typeboxVersion(): string {
  return (JSON.parse(readFileSync(join(root, 'node_modules/typebox/package.json'), 'utf8')) as { version: string })
    .version;
}

async function bundle(): Promise<void> {
  const stamp = join(vendor, 'VERSION');
  const version = typeboxVersion();
  try {
    if (readFileSync(stamp, 'utf8') === version) return;
  } catch {
    // Not bundled yet.
  }
  rmSync(vendor, { recursive: true, force: true });
  const entries = join(vendor, '.entries');
  mkdirSync(entries, { recursive: true });
  for (const [specifier, name] of Object.entries(TYPEBOX_ENTRIES)) {
    const reexport = specifier === 'typebox' ? `export { default } from 'typebox';\n` : '';
    writeFileSync(join(entries, `${name}.mjs`), `${reexport}export * from '${specifier}';\n`);
  }
  await build({
    entryPoints: Object.values(TYPEBOX_ENTRIES).map((name) => join(entries, `${name}.mjs`)),
    outdir: vendor,
    absWorkingDir: root,
    bundle: true,
    // One copy of typebox's modules shared by the three entries (a chunk), as the package itself has.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.js' },
    chunkNames: 'chunk-[hash]',
    legalComments: 'inline',
    logLevel: 'warning',
  });
  rmSync(entries, { recursive: true, force: true });
  writeFileSync(stamp, version);
}

function compiledFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'vendor' || name === 'ui' ? [] : compiledFiles(path);
    return path.endsWith('.js') ? [path] : [];
  });
}

const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(typebox(?:\/compile|\/value)?)\2/g;

function rewrite(): number {
  let changed = 0;
  for (const file of compiledFiles(dist)) {
    const text = readFileSync(file, 'utf8');
    const next = text.replace(SPECIFIER, (_all, lead: string, quote: string, specifier: string) => {
      let path = relative(dirname(file), join(vendor, `${TYPEBOX_ENTRIES[specifier]}.js`));
      if (!path.startsWith('.')) path = `./${path}`;
      return `${lead}${quote}${path}${quote}`;
    });
    if (next !== text) {
      writeFileSync(file, next);
      changed++;
    }
  }
  return changed;
}

await bundle();
rewrite();

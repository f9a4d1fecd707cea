// Bundles the dependencies that ship as hundreds of small ES modules into dist/vendor/ and points the
// compiled code at the bundles. Loading typebox's ~700 modules took about 0.25 s of a node's 1.2 s
// start on an idle machine, libp2p's ~300 about 0.1 s more, viem's ~440 as much again, and more on a
// busy one; a bundle loads in a fraction of that. Not ethereumjs: the EVM plugin patches its
// interpreter's prototype in the installed package (plugins/evm/vm-speedups.ts, run-control.ts), and a
// bundled copy would run unpatched, without the pauses and deadlines that keep a call from holding the node. Every process start pays it: the node, its CLIs, each restart. The sources import
// the packages as usual (types, the tests run from source); only dist/ is rewritten. Run by `npm run
// build` after tsc; it rewrites only what changed, so an incremental build leaves current files untouched.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const dist = join(root, 'dist');

export interface VendorBundle {
  /** The directory under dist/vendor/. */
  readonly name: string;
  /** The packages whose versions stamp the bundle: a change of any rebuilds it. */
  readonly packages: readonly string[];
  /** Each specifier the sources import at run time, and the bundle file it becomes. */
  readonly entries: Readonly<Record<string, string>>;
  /** Left as imports of node_modules: shared with packages that are not bundled. */
  readonly external?: readonly string[];
}

export const VENDOR_BUNDLES: readonly VendorBundle[] = [
  {
    name: 'typebox',
    packages: ['typebox'],
    entries: { typebox: 'index', 'typebox/compile': 'compile', 'typebox/value': 'value' },
  },
  {
    name: 'libp2p',
    packages: [
      'libp2p',
      '@libp2p/bootstrap',
      '@libp2p/crypto',
      '@libp2p/gossipsub',
      '@libp2p/identify',
      '@libp2p/interface',
      '@libp2p/noise',
      '@libp2p/peer-id',
      '@libp2p/tcp',
      '@libp2p/utils',
      '@libp2p/yamux',
      '@multiformats/multiaddr',
    ],
    entries: {
      libp2p: 'libp2p',
      '@libp2p/bootstrap': 'bootstrap',
      '@libp2p/crypto/keys': 'crypto-keys',
      '@libp2p/gossipsub': 'gossipsub',
      '@libp2p/identify': 'identify',
      '@libp2p/interface': 'interface',
      '@libp2p/noise': 'noise',
      '@libp2p/peer-id': 'peer-id',
      '@libp2p/tcp': 'tcp',
      '@libp2p/utils': 'utils',
      '@libp2p/yamux': 'yamux',
      '@multiformats/multiaddr': 'multiaddr',
    },
    // CIDs are made by the object store's packages (ipfs-unixfs-importer, @ipld/car) too: one copy.
    external: ['multiformats', 'multiformats/*'],
  },
  {
    // The EVM plugin and the precompiles encode ABI with it; its index alone is ~440 modules (ox, abitype).
    name: 'viem',
    packages: ['viem'],
    entries: { viem: 'viem', 'viem/accounts': 'accounts' },
  },
];

function versionOf(pkg: string): string {
  return (JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string })
    .version;
}

async function bundle({ name, packages, entries, external = [] }: VendorBundle): Promise<void> {
  const vendor = join(dist, 'vendor', name);
  const stamp = join(vendor, 'VERSION');
  // What the bundle was made from: a change of a version, an entry or an external rebuilds it.
  const versions = [...packages.map((pkg) => `${pkg}@${versionOf(pkg)}`), JSON.stringify({ entries, external })].join(
    '\n',
  );
  try {
    if (readFileSync(stamp, 'utf8') === versions) return;
  } catch {
    // Not bundled yet.
  }
  rmSync(vendor, { recursive: true, force: true });
  const sources = join(vendor, '.entries');
  mkdirSync(sources, { recursive: true });
  for (const [specifier, file] of Object.entries(entries)) {
    const reexport = specifier === 'typebox' ? `export { default } from 'typebox';\n` : '';
    writeFileSync(join(sources, `${file}.mjs`), `${reexport}export * from '${specifier}';\n`);
  }
  await build({
    entryPoints: Object.values(entries).map((file) => join(sources, `${file}.mjs`)),
    outdir: vendor,
    absWorkingDir: root,
    bundle: true,
    // One copy of the modules the entries share (chunks), as the packages themselves have.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: [...external],
    // CommonJS inside (debug's require('tty')): esbuild's ESM output has no require of its own.
    banner: {
      js: "import { createRequire as vendorCreateRequire } from 'node:module'; const require = vendorCreateRequire(import.meta.url);",
    },
    outExtension: { '.js': '.js' },
    chunkNames: 'chunk-[hash]',
    legalComments: 'inline',
    logLevel: 'warning',
  });
  rmSync(sources, { recursive: true, force: true });
  writeFileSync(stamp, versions);
}

function compiledFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'vendor' || name === 'ui' ? [] : compiledFiles(path);
    return path.endsWith('.js') ? [path] : [];
  });
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function rewrite(): number {
  const bundleOf = new Map<string, { name: string; file: string }>();
  for (const { name, entries } of VENDOR_BUNDLES)
    for (const [specifier, file] of Object.entries(entries)) bundleOf.set(specifier, { name, file });
  // Longest first, so '@libp2p/crypto/keys' is not read as '@libp2p/crypto'.
  const names = [...bundleOf.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const specifiers = new RegExp(`(\\bfrom\\s*|\\bimport\\s*\\(\\s*|\\bimport\\s+)(['"])(${names.join('|')})\\2`, 'g');
  let changed = 0;
  for (const file of compiledFiles(dist)) {
    const text = readFileSync(file, 'utf8');
    const next = text.replace(specifiers, (_all, lead: string, quote: string, specifier: string) => {
      const target = bundleOf.get(specifier)!;
      let path = relative(dirname(file), join(dist, 'vendor', target.name, `${target.file}.js`));
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

// Run as the build step; imported (by a test, for the table) it does nothing.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const vendorBundle of VENDOR_BUNDLES) await bundle(vendorBundle);
  rewrite();
}

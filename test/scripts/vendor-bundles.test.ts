import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { VENDOR_BUNDLES } from '../../scripts/vendor-bundles.js';

function files(dir: string, ending: RegExp, skip: readonly string[] = []): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return skip.includes(name) ? [] : files(path, ending, skip);
    return ending.test(path) ? [path] : [];
  });
}

const SOURCE_ROOTS = [
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
/** Imports that stay in the compiled code (`import type` is erased). */
const RUNTIME_SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'".][^'"]*)['"]/g;
const TYPE_ONLY = /^\s*import\s+type\b/;

function runtimeImports(text: string): string[] {
  return text
    .split(/;\s*\n/)
    .filter((statement) => !TYPE_ONLY.test(statement.replace(/^(\s*\/\/.*\n)+/, '')))
    .flatMap((statement) => [...statement.matchAll(RUNTIME_SPECIFIERS)].map((m) => m[1]!));
}

describe('dependencies of many small modules, bundled into dist/vendor by the build', () => {
  for (const { name, packages, entries } of VENDOR_BUNDLES) {
    const owned = (specifier: string) => packages.some((pkg) => specifier === pkg || specifier.startsWith(`${pkg}/`));

    it(`${name}: the sources import it at run time only through the entries the build bundles`, () => {
      const others = SOURCE_ROOTS.flatMap((root) => files(root, /\.ts$/)).flatMap((file) =>
        runtimeImports(readFileSync(file, 'utf8'))
          .filter((specifier) => owned(specifier) && !(specifier in entries))
          .map((specifier) => `${file}: ${specifier}`),
      );
      expect(others).toEqual([]);
    });

    it(`${name}: is what the compiled node loads: no file in dist/ imports the packages themselves`, () => {
      const bare = files('dist', /\.js$/, ['vendor', 'ui']).flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(RUNTIME_SPECIFIERS)]
          .map((m) => m[1]!)
          .filter(owned)
          .map((specifier) => `${file}: ${specifier}`),
      );
      expect(bare).toEqual([]);
    });
  }

  it("bundles no package whose installed files the sources reach around its entries (a patched prototype would miss the bundle's copy)", () => {
    const bundled = VENDOR_BUNDLES.flatMap(({ packages }) => packages);
    const reached = SOURCE_ROOTS.flatMap((root) => files(root, /\.ts$/)).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/import\.meta\.resolve\(\s*['"]([^'"]+)['"]/g)]
        .map((m) => m[1]!)
        .filter((specifier) => bundled.some((pkg) => specifier === pkg || specifier.startsWith(`${pkg}/`)))
        .map((specifier) => `${file}: ${specifier}`),
    );
    expect(reached).toEqual([]);
    // The EVM's interpreter is patched that way, so ethereumjs stays out of the bundles.
    expect(readFileSync('plugins/evm/vm-speedups.ts', 'utf8')).toMatch(/import\.meta\.resolve\('@ethereumjs\/evm'\)/);
    expect(bundled.filter((pkg) => pkg.startsWith('@ethereumjs/'))).toEqual([]);
  });

  it('typebox: builds, compiles and checks schemas with one shared copy across its entries', async () => {
    expect(readFileSync('dist/node/config-schema.js', 'utf8')).toContain("from '../vendor/typebox/index.js'");
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

  it('libp2p: one copy across its entries: a peer id made by one entry is the kind another checks for', async () => {
    expect(readFileSync('dist/p2p/network.js', 'utf8')).toContain("from '../vendor/libp2p/libp2p.js'");
    const vendor = (name: string) => pathToFileURL(join('dist/vendor/libp2p', `${name}.js`)).href;
    const { generateKeyPair } = (await import(vendor('crypto-keys'))) as typeof import('@libp2p/crypto/keys');
    const { peerIdFromPrivateKey, peerIdFromString } = (await import(
      vendor('peer-id')
    )) as typeof import('@libp2p/peer-id');
    const { isPeerId } = (await import(vendor('interface'))) as typeof import('@libp2p/interface');
    const { multiaddr } = (await import(vendor('multiaddr'))) as typeof import('@multiformats/multiaddr');
    const peer = peerIdFromPrivateKey(await generateKeyPair('Ed25519'));
    expect(isPeerId(peer)).toBe(true);
    expect(peerIdFromString(peer.toString()).equals(peer)).toBe(true);
    const text = `/ip4/127.0.0.1/tcp/30333/p2p/${peer.toString()}`;
    expect(multiaddr(text).toString()).toBe(text);
  });
});

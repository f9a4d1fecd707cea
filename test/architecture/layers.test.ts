import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The modules, lowest first: each may import from those before it, never from those after it. */
const LAYERS = [
  'sdk',
  'kernel',
  'jobs',
  'objects',
  'chain',
  'consensus',
  'keys',
  'p2p',
  'plugins',
  'node',
  'bin',
] as const;
type Layer = (typeof LAYERS)[number];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function layerOf(path: string): Layer | undefined {
  const top = normalize(path).split(/[\\/]/)[0];
  return LAYERS.find((layer) => layer === top);
}

/** Every relative import of a file, as repo-relative paths. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) =>
    relative('.', join(dirname(file), m[1]!)),
  );
}

describe('module layers', () => {
  it('import only downwards: sdk <- kernel <- jobs <- objects <- chain <- consensus <- keys <- p2p <- plugins <- node <- bin', () => {
    const wrong: string[] = [];
    for (const layer of LAYERS) {
      for (const file of sources(layer)) {
        for (const target of imports(file)) {
          const to = layerOf(target);
          if (to && LAYERS.indexOf(to) > LAYERS.indexOf(layer)) wrong.push(`${file} imports ${target}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('chain rules never import from per-node plugins: every node runs the registries, not every node a capability', () => {
    const wrong = ['plugins/oon', 'plugins/omp'].flatMap((dir) =>
      sources(dir).flatMap((file) =>
        imports(file)
          .filter((target) => /^plugins\/(compute|omp-storage|validator)\//.test(target))
          .map((target) => `${file} imports ${target}`),
      ),
    );
    expect(wrong).toEqual([]);
  });

  it('the EVM plugin runs precompiles without knowing them: it imports nothing of the plugins that declare them', () => {
    const wrong = sources('plugins/evm').flatMap((file) =>
      imports(file)
        .filter((target) => /^plugins\/(oon|omp|staking)\//.test(target))
        .map((target) => `${file} imports ${target}`),
    );
    expect(wrong).toEqual([]);
  });

  it('the SDK uses no Node built-ins, so it runs in browsers', () => {
    const builtins = sources('sdk').filter((file) => /from ['"]node:/.test(readFileSync(file, 'utf8')));
    expect(builtins).toEqual([]);
  });

  it('the kernel is a small plugin host that knows no chain words', () => {
    const files = sources('kernel');
    const words = /\b(block|blocks|transaction|transactions|mempool|genesis|peer|peers)\b/i;
    const found = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => [line, i] as const)
        .filter(([line]) => words.test(line))
        .map(([line, i]) => `${file}:${i + 1}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });

  it("keeps each kernel file in one of the parts docs/architecture.md lists, and each part within that table's budget", () => {
    const parts = kernelParts(readFileSync('docs/architecture.md', 'utf8'));
    expect(parts.map((p) => p.name)).toEqual(['plugin host', 'RPC engine', 'transport', 'storage', 'shared services']);
    const partOf = (file: string) =>
      parts.find((part) => part.paths.some((path) => (path.endsWith('/') ? file.startsWith(path) : file === path)));
    const homeless = sources('kernel').filter((file) => !partOf(file));
    expect(
      homeless,
      'kernel files in no part of the table: name them there, or move them to the plugin that uses them',
    ).toEqual([]);
    const over = parts.flatMap((part) => {
      const lines = sources('kernel')
        .filter((file) => partOf(file) === part)
        .reduce((sum, file) => sum + (readFileSync(file, 'utf8').match(/\n/g)?.length ?? 0), 0);
      return lines > part.budget ? [`${part.name}: ${lines} lines, budget ${part.budget}`] : [];
    });
    expect(
      over,
      'over budget: move the code to a plugin, or raise the budget in docs/architecture.md with the reason',
    ).toEqual([]);
  });
});

/** The kernel table of docs/architecture.md: `| part | files | why | budget |`, files as backticked paths. */
function kernelParts(doc: string): { name: string; paths: string[]; budget: number }[] {
  const section = doc.slice(doc.indexOf('## The kernel'), doc.indexOf('\n## ', doc.indexOf('## The kernel') + 1));
  return section
    .split('\n')
    .filter((line) => /^\| [^-|].*\| \d+ \|$/.test(line))
    .map((line) => {
      const [name, files, , budget] = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      return { name: name!, paths: [...files!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!), budget: Number(budget) };
    });
}

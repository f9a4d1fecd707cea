import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

export interface StaticFile {
  readonly body: Uint8Array;
  readonly type: string;
}

/**
 * The built page (dist/ui, made by `npm run build`), read once at start: a handful of small files,
 * served from memory by name only (no path from a request ever reaches the file system).
 */
export function loadBuiltPage(): Map<string, StaticFile> {
  // From dist/ the page sits two folders up; tests run the TypeScript sources and use the build's copy.
  const dir = import.meta.url.endsWith('.ts')
    ? new URL('../../dist/ui/', import.meta.url)
    : new URL('../../ui/', import.meta.url);
  const files = new Map<string, StaticFile>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    throw new Error(`the explorer page is not built (${fileURLToPath(dir)} is missing): run \`npm run build\``);
  }
  for (const name of names) {
    const type = TYPES[extname(name)];
    if (type) files.set(name, { body: readFileSync(new URL(name, dir)), type });
  }
  return files;
}

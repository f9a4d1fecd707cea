// Builds the explorer page (ui/) into dist/ui: one minified ES module bundled with esbuild from the
// Preact sources and the SDK, the HTML and the stylesheet. Run by `npm run build` (so `npm install`
// runs it too, through `prepare`); the node serves dist/ui at /ui/.
// A running node may be serving dist/ui while a build runs (`npm start` in another shell, a test of
// the build beside browser tests): so a file is written only when its bytes change, each one replaced
// whole by a rename, and only files the build no longer makes are removed. A build with nothing new
// touches nothing.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const out = join(root, 'dist/ui');
mkdirSync(out, { recursive: true });

/** Writes `bytes` to `dist/ui/<name>` unless they are already there, through a temp file and a rename. */
function put(name: string, bytes: Uint8Array): void {
  const path = join(out, name);
  try {
    if (Buffer.from(bytes).equals(readFileSync(path))) return;
  } catch {
    // Not there yet.
  }
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, bytes);
  renameSync(temp, path);
}

const built = await build({
  entryPoints: { app: join(root, 'ui/src/main.tsx') },
  outdir: out,
  bundle: true,
  format: 'esm',
  // What the SDK loads on first use (its ABI helpers for contracts) goes to a chunk of its own: the page never asks for it.
  splitting: true,
  chunkNames: 'chunk-[hash]',
  minify: true,
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
  write: false,
});
const files = new Map<string, Uint8Array>(
  built.outputFiles.map((file) => [file.path.slice(out.length + 1), file.contents]),
);
files.set('index.html', readFileSync(join(root, 'ui/index.html')));
files.set('icon.svg', readFileSync(join(root, 'ui/icon.svg')));
files.set('styles.css', readFileSync(join(root, 'ui/src/styles.css')));
// The charts' library stylesheet (uPlot), served beside ours: the page loads nothing from elsewhere.
files.set('uplot.css', readFileSync(join(root, 'node_modules/uplot/dist/uPlot.min.css')));
for (const [name, bytes] of files) put(name, bytes);
// Chunks of an earlier build (their names carry their hash), after the new ones are in place.
for (const name of readdirSync(out)) if (!files.has(name)) rmSync(join(out, name), { recursive: true, force: true });
if (process.env.UI_BUILD_REPORT) {
  for (const file of ['index.html', 'app.js', 'styles.css', 'icon.svg']) {
    const path = join(out, file);
    process.stdout.write(`${file}: ${statSync(path).size} bytes, ${gzipSync(readFileSync(path)).length} gzipped\n`);
  }
}

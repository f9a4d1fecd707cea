// Builds the explorer page (ui/) into dist/ui: one minified ES module bundled with esbuild from the
// Preact sources and the SDK, the HTML and the stylesheet. Run by `npm run build` (so `npm install`
// runs it too, through `prepare`); the node serves dist/ui at /ui/.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const out = join(root, 'dist/ui');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
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
});
copyFileSync(join(root, 'ui/index.html'), join(out, 'index.html'));
copyFileSync(join(root, 'ui/icon.svg'), join(out, 'icon.svg'));
copyFileSync(join(root, 'ui/src/styles.css'), join(out, 'styles.css'));
// The charts' library stylesheet (uPlot), served beside ours: the page loads nothing from elsewhere.
copyFileSync(join(root, 'node_modules/uplot/dist/uPlot.min.css'), join(out, 'uplot.css'));
if (process.env.UI_BUILD_REPORT) {
  for (const file of ['index.html', 'app.js', 'styles.css', 'icon.svg']) {
    const path = join(out, file);
    process.stdout.write(`${file}: ${statSync(path).size} bytes, ${gzipSync(readFileSync(path)).length} gzipped\n`);
  }
}

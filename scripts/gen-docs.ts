// `npm run docs`: regenerates docs/rpc.md, docs/errors.md and docs/precompiles.md from the code (a test checks they are current).
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalog } from '../node/catalog.js';
import { renderErrorTable, renderRpcReference } from '../node/docs/reference.js';
import { renderPrecompileReference } from '../node/docs/precompiles.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), process.env.SVC_DOCS_ROOT ?? '../..');
writeFileSync(resolve(root, 'docs/rpc.md'), await renderRpcReference(catalog));
writeFileSync(resolve(root, 'docs/errors.md'), renderErrorTable());
writeFileSync(resolve(root, 'docs/precompiles.md'), await renderPrecompileReference(catalog));
process.stdout.write('wrote docs/rpc.md, docs/errors.md and docs/precompiles.md\n');

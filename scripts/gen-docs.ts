// `npm run docs`: regenerates docs/rpc.md, docs/errors.md, sdk/error-table.ts and docs/precompiles.md
// from the code, and deploy/compose.yaml from the hosts profile's manifest (tests check they are current).
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalog } from '../node/catalog.js';
import { renderErrorTable, renderRpcReference, renderSdkErrorTable } from '../node/docs/reference.js';
import { renderPrecompileReference } from '../node/docs/precompiles.js';
import { renderCompose } from './deploy/compose.js';
import { loadManifest } from './e2e/manifest.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), process.env.SVC_DOCS_ROOT ?? '../..');
writeFileSync(resolve(root, 'docs/rpc.md'), await renderRpcReference(catalog));
writeFileSync(resolve(root, 'docs/errors.md'), await renderErrorTable(catalog));
writeFileSync(resolve(root, 'sdk/error-table.ts'), await renderSdkErrorTable(catalog));
writeFileSync(resolve(root, 'docs/precompiles.md'), await renderPrecompileReference(catalog));
writeFileSync(
  resolve(root, 'deploy/compose.yaml'),
  renderCompose(loadManifest(resolve(root, 'config/e2e/hosts.jsonc'))),
);
process.stdout.write(
  'wrote docs/rpc.md, docs/errors.md, sdk/error-table.ts, docs/precompiles.md and deploy/compose.yaml\n',
);

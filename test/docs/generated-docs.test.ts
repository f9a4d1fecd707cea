import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../node/catalog.js';
import { renderErrorTable, renderRpcReference, renderSdkErrorTable } from '../../node/docs/reference.js';
import { renderPrecompileReference } from '../../node/docs/precompiles.js';

describe('generated docs', () => {
  it('docs/rpc.md matches the registered methods and their schemas (run `npm run docs` after changing them)', async () => {
    expect(readFileSync('docs/rpc.md', 'utf8')).toBe(await renderRpcReference(catalog));
  });

  it('docs/errors.md matches the errors the kernel and the plugins declare (run `npm run docs`)', async () => {
    expect(readFileSync('docs/errors.md', 'utf8')).toBe(await renderErrorTable(catalog));
  });

  it("the SDK's error table (sdk/error-table.ts) is generated from the same declarations (run `npm run docs`)", async () => {
    expect(readFileSync('sdk/error-table.ts', 'utf8')).toBe(await renderSdkErrorTable(catalog));
  });

  it('docs/precompiles.md matches the precompiles the plugins declare (run `npm run docs`)', async () => {
    expect(readFileSync('docs/precompiles.md', 'utf8')).toBe(await renderPrecompileReference(catalog));
  });
});

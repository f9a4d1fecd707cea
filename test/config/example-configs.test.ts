import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { catalog } from '../../node/catalog.js';
import { readConfigFile } from '../../kernel/config/load.js';
import { resolveConfig } from '../../node/config.js';
import { SvcNode } from '../../node/node.js';
import { captureLog } from '../helpers/log-capture.js';

describe('config examples', () => {
  const files = readdirSync('config').filter((f) => f.endsWith('.jsonc'));
  // The guardrails examples need a token; the test process's other files must not see it.
  afterAll(() => {
    delete process.env.SVC_RPC_TOKENS;
  });

  it.each(files)('config/%s is valid and loads its plugins', async (file) => {
    process.env.SVC_RPC_TOKENS = 'example-token-0123456789';
    const config = resolveConfig(readConfigFile(resolve('config', file)));
    const node = await SvcNode.create({ config, catalog, log: captureLog().log, baseDir: resolve('config') });
    expect(node.plugins.map((p) => p.definition.name)).toContain('chain');
  });

  it('covers every role', () => {
    const roles = files.map((f) => resolveConfig(readConfigFile(join('config', f))).node.role);
    expect(new Set(roles)).toEqual(new Set(['validator', 'compute', 'full']));
  });
});

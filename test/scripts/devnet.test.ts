import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../helpers/cli.js';

const DEVNET = join(import.meta.dirname, '../../dist/scripts/devnet.js');

describe('scripts/devnet', () => {
  it('answers a mistyped flag with a usage line, not a stack trace', async () => {
    const result = await run(DEVNET, ['--block-tme', '200']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^devnet: Unknown option '--block-tme'.*\nusage: npm run devnet -- \[--dir <path>\] \[--fresh\] \[--block-time <ms>\] \[--validators <1-10>\]\n$/,
    );
    expect((await run(DEVNET, ['--block-time', 'soon'])).stderr).toContain(
      'devnet: --block-time must be a whole number of ms, not "soon"',
    );
    expect((await run(DEVNET, ['--validators', '11'])).stderr).toContain(
      'devnet: --validators must be a whole number from 1 to 10',
    );
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SDK_VERSION } from '../../sdk/index.js';
import { VERSION } from '../../kernel/version.js';

describe('the SDK version', () => {
  it("is the package's, semver, and 1.1.0 or later (the seed's rpcCall is there from 1.1.0)", () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(SDK_VERSION).toBe(pkg.version);
    expect(VERSION).toBe(pkg.version);
    const [major, minor] = SDK_VERSION.split('.').map(Number) as [number, number];
    expect(SDK_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    expect(major > 1 || (major === 1 && minor >= 1)).toBe(true);
  });
});

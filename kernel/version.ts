import { readFileSync } from 'node:fs';

/** svc-node's version, from its package.json (found from source or from dist/). */
export const VERSION: string = (() => {
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'svc-node' && pkg.version) return pkg.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
})();

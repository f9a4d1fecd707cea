// Half of state sync's floor (state-sync.ts): a snapshot's chunks read, decoded and their state root
// computed from scratch, as a node must at the least, timed after the modules loaded. Prints one JSON
// line { seconds, root }.
// Usage: node state-root-floor.js <snapshot dir> <chunks>
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StateCommitment } from '../../chain/state/state-root.js';
import { decode } from '../../sdk/encoding.js';

const [dir, count] = process.argv.slice(2);
const started = performance.now();
const commitment = new StateCommitment();
for (let i = 0; i < Number(count); i++)
  for (const [key, value] of decode<[string, Uint8Array][]>(readFileSync(join(dir!, `chunk-${i}`))))
    commitment.set(key, value);
const root = `0x${commitment.root().toString('hex')}`;
process.stdout.write(`${JSON.stringify({ seconds: (performance.now() - started) / 1000, root })}\n`);

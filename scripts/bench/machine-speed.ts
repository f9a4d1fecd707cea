// A fixed single-threaded workload (hashing and object churn, like a node's), timed: this machine's
// speed varies by several times between runs, and a figure is read against it. Lower is faster.
import { createHash } from 'node:crypto';

function work(rounds: number): void {
  const data = Buffer.alloc(1024, 7);
  let digest = Buffer.alloc(32);
  for (let i = 0; i < rounds; i++) {
    digest = createHash('sha256').update(data).update(digest).digest();
    const record = { id: digest.toString('hex'), n: i, list: [i, i + 1, i + 2], text: `item ${i}` };
    digest[0] = JSON.stringify(record).length & 0xff;
  }
}

export function referenceMs(): number {
  work(5_000); // compiled before it is timed
  const started = performance.now();
  work(20_000);
  return Number((performance.now() - started).toFixed(1));
}

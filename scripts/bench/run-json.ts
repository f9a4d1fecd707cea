// Runs one bench step (a node script) as its own process and takes the JSON line it prints last.
import { spawn } from 'node:child_process';

/** `node <args>`'s last stdout line as JSON; a step that prints none fails with the end of its stderr. */
export function runJson(args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    // Only its end is kept: autocannon writes its progress there; a failed step's reason is at the end.
    let errors = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (errors = (errors + d.toString()).slice(-2000)));
    child.once('exit', (code) => {
      try {
        resolvePromise(JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>);
      } catch {
        reject(new Error(`${args[0]} exited with ${code} and no JSON: ${out.slice(0, 500)}\n${errors}`));
      }
    });
  });
}

// Anvil, the npm package's binary (@foundry-rs/anvil), as a same-run baseline for the contract
// benchmarks: on 127.0.0.1, a free port, with the flags a benchmark gives it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

export function startAnvil(flags: readonly string[]): Promise<{ child: ChildProcess; url: string }> {
  const binary = join(
    dirname(require.resolve(`@foundry-rs/anvil-linux-${process.arch === 'x64' ? 'amd64' : process.arch}/package.json`)),
    'bin',
    'anvil',
  );
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['--host', '127.0.0.1', '--port', '0', ...flags], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    // Anvil logs every request; keep only what finds its port.
    const onData = (d: Buffer) => {
      if (out.includes('Listening')) return;
      out += d.toString();
      const port = /Listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1];
      if (port) resolve({ child, url: `http://127.0.0.1:${port}` });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`anvil exited with ${code}: ${out}`)));
  });
}

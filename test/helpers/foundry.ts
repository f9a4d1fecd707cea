import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** A Foundry binary as its npm package ships it for this platform (no download). */
export function foundryBinary(tool: 'cast' | 'anvil' | 'forge'): string {
  const platform = `@foundry-rs/${tool}-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`;
  return join(dirname(require.resolve(`${platform}/package.json`)), 'bin', tool);
}

/** The first key of the test mnemonic (Foundry's and Hardhat's default account 0): public, never hold value with it. */
export const TEST_KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const TEST_ADDRESS_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
export const TEST_KEY_1 = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
export const TEST_ADDRESS_1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** Runs `cast` to completion; rejects with its output when it fails. */
export function cast(args: string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(foundryBinary('cast'), args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', FOUNDRY_DISABLE_NIGHTLY_WARNING: '1' },
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out.trim());
      else reject(new Error(`cast ${args.slice(0, 2).join(' ')} exited ${code}: ${err.trim() || out.trim()}`));
    });
  });
}

/** An Anvil process from the npm package's binary on a free port (a same-run reference for what geth-style methods answer). */
export function startAnvil(args: string[] = []): Promise<{ url: string; stop: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(foundryBinary('anvil'), ['--host', '127.0.0.1', '--port', '0', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGKILL');
      });
    // Anvil logs every request: read only until its port is known.
    const onData = (d: Buffer) => {
      if (out.includes('Listening')) return;
      out += d.toString();
      const port = /Listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1];
      if (port) resolve({ url: `http://127.0.0.1:${port}`, stop });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`anvil exited with ${code}: ${out}`)));
  });
}

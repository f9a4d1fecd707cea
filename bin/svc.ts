#!/usr/bin/env node
import { cac } from 'cac';
import { RpcError, SvcClient } from '../sdk/index.js';
import { VERSION } from '../kernel/version.js';

interface GlobalOptions {
  url?: unknown;
  json?: boolean;
}

function client(options: GlobalOptions): SvcClient {
  return new SvcClient({ url: String(options.url ?? process.env.SVC_RPC_URL ?? 'http://127.0.0.1:8545') });
}

function print(options: GlobalOptions, value: unknown, human: () => string): void {
  process.stdout.write(`${options.json ? JSON.stringify(value) : human()}\n`);
}

const cli = cac('svc');
cli.option('--url <url>', 'node URL (default $SVC_RPC_URL, else http://127.0.0.1:8545)').option('--json', 'machine-readable output');

cli.command('rpc <method> [paramsJson]', 'call any JSON-RPC method; params as a JSON array').action(async (method: string, paramsJson: string | undefined, options: GlobalOptions) => {
  let params: unknown = [];
  if (paramsJson !== undefined) {
    try {
      params = JSON.parse(String(paramsJson));
    } catch {
      throw new Error(`paramsJson: not valid JSON: ${String(paramsJson)}`);
    }
    if (!Array.isArray(params)) throw new Error('paramsJson: must be a JSON array of positional params');
  }
  const result = await client(options).rpcCall(method, params as unknown[]);
  print(options, result, () => JSON.stringify(result, null, 2));
});

cli.command('block-number', 'height of the head block').action(async (options: GlobalOptions) => {
  const height = await client(options).blockNumber();
  print(options, height, () => String(height));
});

cli.command('block <height|hash>', 'a block by height, hash, or "latest"').action(async (ref: string | number, options: GlobalOptions) => {
  const text = String(ref);
  const c = client(options);
  const block = text.startsWith('0x') ? await c.getBlockByHash(text) : await c.getBlockByNumber(text === 'latest' ? 'latest' : Number(text));
  print(options, block, () => JSON.stringify(block, null, 2));
});

cli.help();
cli.version(VERSION);

try {
  cli.parse(process.argv, { run: false });
  if (!cli.matchedCommand && cli.args.length > 0) throw new Error(`unknown command "${cli.args[0]}" (see svc --help)`);
  if (!cli.matchedCommand && !cli.options.help && !cli.options.version) cli.outputHelp();
  await cli.runMatchedCommand();
} catch (error) {
  if (error instanceof RpcError) {
    process.stderr.write(`svc: ${error.message} (${error.code}): ${error.data?.reason ?? ''}\n`);
    process.exit(1);
  }
  const cause = (error as { cause?: { code?: string } }).cause;
  process.stderr.write(`svc: ${(error as Error).message}${cause?.code ? ` (${cause.code})` : ''}\n`);
  process.exit(error instanceof Error && error.name === 'CACError' ? 2 : 1);
}

#!/usr/bin/env node
import '../p2p/promise-with-resolvers.js';
import { dirname, resolve } from 'node:path';
import { cac } from 'cac';
import { printActionHelp } from './action-help.js';
import { ConfigError } from '../kernel/config/config-error.js';
import { START_FLAGS, flagsToConfig } from '../node/flags.js';
import { mergeConfig, readConfigFile, type RawConfig } from '../kernel/config/load.js';
import { VERSION } from '../kernel/version.js';
import type { TestnetOptions } from './testnet-command.js';
import { exitQuietlyOnClosedPipe, integerText, optionText, parseArgs, readKeyFile, UsageError } from './cli-args.js';

// What a command runs is imported when it runs: flags are checked, and help and usage errors answered,
// without loading the node (its plugins, the EVM, libp2p and the schemas take a second to load).
function fail(error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`svc-node: ${message.split('\n')[0]}\n`);
  // An error that names its own exit code (a node that must not go on: chain/chain-halt.ts) exits with it.
  const own = (error as { exitCode?: unknown } | undefined)?.exitCode;
  process.exit(
    typeof own === 'number'
      ? own
      : error instanceof ConfigError || error instanceof UsageError || (error as Error)?.name === 'CACError'
        ? 2
        : 1,
  );
}

function buildConfig(options: Record<string, unknown>): {
  raw: RawConfig;
  origins: Map<string, string>;
  baseDir: string;
} {
  const { config: fromFlags, origins } = flagsToConfig(options);
  const file = options.config;
  if (file === undefined) return { raw: fromFlags, origins, baseDir: process.cwd() };
  if (typeof file !== 'string' || file === '') throw new ConfigError('--config: needs a file path');
  const fromFile = readConfigFile(file);
  const raw = mergeConfig(fromFile, fromFlags);
  // --plugin adds to the file's list rather than replacing it.
  if (Array.isArray(fromFile.plugins) && Array.isArray(fromFlags.plugins))
    raw.plugins = [...fromFile.plugins, ...fromFlags.plugins];
  return { raw, origins, baseDir: dirname(resolve(file)) };
}

async function start(options: Record<string, unknown>): Promise<void> {
  const { raw, origins, baseDir } = buildConfig(options);
  const [{ resolveConfig }, { createLogger }, { stdoutDestination }, { SvcNode }, { catalog }, { devnetKey }] =
    await Promise.all([
      import('../node/config.js'),
      import('../kernel/log.js'),
      import('../node/log-destination.js'),
      import('../node/node.js'),
      import('../node/catalog.js'),
      import('../sdk/keys.js'),
    ]);
  const config = resolveConfig(raw, origins);
  const format = config.node.log.format ?? (process.stdout.isTTY ? 'pretty' : 'json');
  const log = createLogger({
    level: config.node.log.level,
    format,
    ...(format === 'json' ? { destination: stdoutDestination() } : {}),
  });
  const node = await SvcNode.create({ config, catalog, log, baseDir });
  let signals = 0;
  const shutdown = (why: string, exitCode = 0): void => {
    signals++;
    if (signals > 1) {
      log.warn(`second ${why}: exiting without a clean shutdown`);
      process.exit(130);
    }
    log.info({ why, exitCode }, 'shutting down');
    const force = setTimeout(() => {
      log.error('shutdown took longer than 30 s; exiting');
      process.exit(1);
    }, 30_000);
    force.unref();
    node.stop().then(
      () => process.exit(exitCode),
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // A plugin that must not go on (a halt height reached, rules this release lacks) stops the node with its own code.
  void node.exitRequested.then(({ plugin, reason, exitCode }) => {
    log.info({ plugin, exitCode }, `stopping: ${reason}`);
    shutdown(`exit requested by ${plugin}`, exitCode);
  });
  if (config.node.network === 'devnet' && config.node.genesis === undefined) {
    log.info(
      { validator: devnetKey('validator', 0).address },
      'devnet: built-in genesis and dev validator key (public test keys; never hold value with them)',
    );
  }
  await node.start();
}

const cli = cac('svc-node');

const startCommand = cli
  .command('start', 'run a node until SIGINT/SIGTERM')
  .option('--config <file>', 'JSON config file (flags win over it)');
for (const flag of START_FLAGS)
  startCommand.option(`${flag.flag}${flag.placeholder ? ` ${flag.placeholder}` : ''}`, flag.description);
startCommand.action((options: Record<string, unknown>) => start(options));

/** Key commands' passphrase: --passphrase-file, else SVC_KEY_PASSPHRASE. */
async function passphraseOf(options: { passphraseFile?: unknown }): Promise<string | undefined> {
  if (
    options.passphraseFile !== undefined &&
    (typeof options.passphraseFile !== 'string' || options.passphraseFile === '')
  )
    throw new UsageError('--passphrase-file: needs a file path');
  const { keyPassphrase } = await import('../keys/node-keys.js');
  return keyPassphrase(options.passphraseFile as string | undefined);
}

cli
  .command(
    'init',
    'create a data dir and its keys, and print them; with --validators N, a whole network: its genesis, and a data dir and config per node',
  )
  .option('--data-dir <path>', 'data dir (default ./data)')
  .option(
    '--passphrase-file <file>',
    'seal the operator key with the first line of this file (else SVC_KEY_PASSPHRASE)',
  )
  .option(
    '--validators <n>',
    'a network of n validators: the first is the genesis validator, the others are in the set from block 1 with their stake bonded',
  )
  .option('--followers <n>', 'with --validators: full nodes besides them (default 0)')
  .option(
    '--out <dir>',
    "with --validators: an empty dir for genesis.json, each node's data dir and <node>.json config",
  )
  .option(
    '--hosts <list>',
    "with --validators: each node's IPv4 address, comma-separated, validators first; or one for all, ports counting up (default 127.0.0.1)",
  )
  .option('--network <name>', 'with --validators: the network name (default devnet: the faucet and dev accounts)')
  .option('--chain-id <id>', 'with --validators: default svc-<network>-<6 random hex>')
  .option(
    '--evm-chain-id <n>',
    "with --validators: what eth_chainId answers and wallets sign for (default: derived from the chain id, never the devnet's 7566947)",
  )
  .option('--stake <OGT>', "with --validators: each staked validator's stake (15 to 28, default 20)")
  .option(
    '--from-state <file>',
    'with --validators: start the network with the state of an export-state file, at its height (the old validators get their stakes back)',
  )
  .option('--block-time <ms>', 'with --validators: default 1000')
  .option('--rpc-port <port>', 'with --validators: default 8545')
  .option('--p2p-port <port>', 'with --validators: default 30333')
  .option('--json', 'with --validators: the nodes as JSON')
  .action(async (options: TestnetOptions & { dataDir?: unknown; passphraseFile?: unknown }) => {
    if (options.validators !== undefined) {
      const { initTestnetCommand } = await import('./testnet-command.js');
      return initTestnetCommand(options);
    }
    const dataDir = String(options.dataDir ?? './data');
    const passphrase = await passphraseOf(options);
    const [{ loadOrCreateNodeKeys }, { devnetGenesisHash }] = await Promise.all([
      import('../keys/node-keys.js'),
      import('../node/genesis.js'),
    ]);
    const keys = await loadOrCreateNodeKeys(dataDir, passphrase);
    process.stdout.write(
      `data dir   ${resolve(dataDir)}\npeer id    ${keys.peerId}\noperator   ${keys.operator.address}\ngenesis    ${devnetGenesisHash()} (devnet)\n`,
    );
  });

cli
  .command(
    'keys [action] [file]',
    'print the peer id and operator keys of a data dir (`keys peer-id`, `keys operator`: just that); `keys import <file>` adds an operator key',
  )
  .option('--data-dir <path>', 'data dir (default ./data)')
  .option('--passphrase-file <file>', 'passphrase of the key files (else SVC_KEY_PASSPHRASE)')
  .option('--json', 'machine-readable output')
  .action(
    async (
      action: string | undefined,
      file: string | undefined,
      options: { dataDir?: unknown; passphraseFile?: unknown; json?: boolean },
    ) => {
      const dataDir = String(options.dataDir ?? './data');
      const passphrase = await passphraseOf(options);
      const { importOperatorKey, loadOrCreateNodeKeys } = await import('../keys/node-keys.js');
      if (action === 'import') {
        if (!file)
          throw new UsageError('keys import: needs a key file (from `svc keys new --out`, or 32 bytes of hex)');
        const key = readKeyFile(file);
        await loadOrCreateNodeKeys(dataDir, passphrase);
        const address = importOperatorKey(dataDir, key, passphrase);
        process.stdout.write(
          options.json
            ? `${JSON.stringify({ imported: address, encrypted: passphrase !== undefined })}\n`
            : `imported operator ${address}${passphrase ? ' (encrypted)' : ''}\n`,
        );
        return;
      }
      if (action !== undefined && action !== 'peer-id' && action !== 'operator')
        throw new UsageError(`unknown keys action "${action}" (expected: import, peer-id, operator)`);
      const keys = await loadOrCreateNodeKeys(dataDir, passphrase);
      if (action === 'peer-id') return void process.stdout.write(`${keys.peerId}\n`);
      if (action === 'operator') return void process.stdout.write(`${keys.operator.address}\n`);
      const imported = keys.operators.addresses.filter((a) => a !== keys.operator.address);
      if (options.json)
        process.stdout.write(`${JSON.stringify({ peerId: keys.peerId, operator: keys.operator.address, imported })}\n`);
      else
        process.stdout.write(
          `peer id    ${keys.peerId}\noperator   ${keys.operator.address}\n${imported.map((a) => `imported   ${a}\n`).join('')}`,
        );
    },
  );

cli
  .command('plugins', 'list the first-party plugins and what each contributes')
  .option('--json', 'machine-readable output')
  .action(async (options: { json?: boolean }) => {
    const [{ describePlugins }, { catalog }] = await Promise.all([
      import('../node/describe.js'),
      import('../node/catalog.js'),
    ]);
    const described = await describePlugins(catalog);
    if (options.json) {
      process.stdout.write(`${JSON.stringify(described, null, 2)}\n`);
      return;
    }
    for (const p of described) {
      process.stdout.write(`${p.name} ${p.version} — ${p.description}\n`);
      if (p.roles.length)
        process.stdout.write(
          `  enabled: ${p.roles.map((r) => (r.startsWith('always') ? r : `role ${r}`)).join(', ')}\n`,
        );
      if (p.requires.length) process.stdout.write(`  requires: ${p.requires.join(', ')}\n`);
      if (p.provides.length) process.stdout.write(`  provides: ${p.provides.join(', ')}\n`);
      if (p.config.length) process.stdout.write(`  config: ${p.config.join(', ')}\n`);
      if (p.methods.length) process.stdout.write(`  rpc: ${p.methods.join(', ')}\n`);
      if (p.routes.length) process.stdout.write(`  routes: ${p.routes.join(', ')}\n`);
      if (p.namespaces.length)
        process.stdout.write(`  storage:\n${p.namespaces.map((n) => `    ${n.name}  ${n.layout}\n`).join('')}`);
      if (p.txKinds.length) process.stdout.write(`  transaction kinds: ${p.txKinds.join(', ')}\n`);
      if (p.subscriptions.length) process.stdout.write(`  subscriptions: ${p.subscriptions.join(', ')}\n`);
      if (p.guards.length) process.stdout.write(`  request guards: ${p.guards.join(', ')}\n`);
    }
  });

cli
  .command('export-blocks', "write a stopped node's blocks, their transactions and certificates to a file")
  .option('--data-dir <path>', 'data dir (default ./data)')
  .option('--from <height>', 'first block (default 1)')
  .option('--to <height>', 'last block (default the head)')
  .option('--out <file>', 'the file to write (a new one)')
  .action(async (options: { dataDir?: unknown; from?: unknown; to?: unknown; out?: unknown }) => {
    const dataDir = String(options.dataDir ?? './data');
    const out = optionText(options.out, '--out');
    if (out === undefined) throw new UsageError('export-blocks: --out <file> names the file to write');
    const from = options.from === undefined ? undefined : integerText(options.from, '--from', 1);
    const to = options.to === undefined ? undefined : integerText(options.to, '--to', 1);
    const { exportBlocks } = await import('../chain/backup/export-blocks.js');
    const done = await exportBlocks(dataDir, { from, to }, out);
    process.stdout.write(`wrote blocks ${done.from} to ${done.to} (${done.count}) of ${resolve(dataDir)} to ${out}\n`);
  });

cli
  .command(
    'export-state',
    "write a stopped node's whole state after a block as a genesis file, for a network made of it",
  )
  .option('--data-dir <path>', 'data dir (default ./data)')
  .option('--height <h>', 'the block whose state (default the head; older ones within the history window)')
  .option('--out <file>', 'the genesis file to write (a new one)')
  .action(async (options: { dataDir?: unknown; height?: unknown; out?: unknown }) => {
    const dataDir = String(options.dataDir ?? './data');
    const out = optionText(options.out, '--out');
    if (out === undefined) throw new UsageError('export-state: --out <file> names the genesis file to write');
    const height = options.height === undefined ? undefined : integerText(options.height, '--height', 0);
    const [{ exportState }, { existsSync }] = await Promise.all([import('../node/export-state.js'), import('node:fs')]);
    if (existsSync(out)) throw new UsageError(`--out ${out}: the file exists; name a new one`);
    const done = await exportState(dataDir, height, out);
    process.stdout.write(
      `wrote the state after block ${done.height} of ${resolve(dataDir)} (${done.keys} keys, chain rules version ${done.rulesVersion}) to ${out}\n`,
    );
  });

cli
  .command(
    'import-blocks <file>',
    'import the blocks of an export-blocks file into a data dir, executing and checking each one',
  )
  .option('--config <file>', "the node's JSON config (its network, genesis and history settings)")
  .option('--data-dir <path>', 'data dir (default ./data)')
  .option('--network <name>', 'the network the blocks are of (default devnet)')
  .option('--genesis <file>', 'its genesis file (other networks than devnet)')
  .option('--receipt-archive <bool>', 'archive: keep every receipt and historical state')
  .action(async (file: string, options: Record<string, unknown>) => {
    const { raw } = buildConfig(options);
    const [{ createLogger }, { importBlocks }] = await Promise.all([
      import('../kernel/log.js'),
      import('../node/import-blocks.js'),
    ]);
    const log = createLogger({ level: 'info', format: process.stdout.isTTY ? 'pretty' : 'json' });
    const done = await importBlocks(raw, file, log);
    process.stdout.write(
      `imported ${done.imported} blocks from ${file}: the head of ${resolve(String(raw.dataDir ?? './data'))} is ${done.head} (was ${done.from})\n`,
    );
  });

cli
  .command(
    'prune',
    'drop receipts and state history outside the window, so an archive data dir can run without --receipt-archive',
  )
  .option('--data-dir <path>', 'data dir (default ./data)')
  .option('--history-blocks <n>', 'blocks of receipts and state history to keep (default 10000)')
  .action(async (options: { dataDir?: unknown; historyBlocks?: unknown }) => {
    const dataDir = String(options.dataDir ?? './data');
    const historyBlocks =
      options.historyBlocks === undefined ? 10_000 : integerText(options.historyBlocks, '--history-blocks', 1);
    const [{ createLogger }, { pruneDataDir }] = await Promise.all([
      import('../kernel/log.js'),
      import('../chain/prune.js'),
    ]);
    const log = createLogger({ level: 'info', format: process.stdout.isTTY ? 'pretty' : 'json' });
    const result = await pruneDataDir(dataDir, historyBlocks, log);
    process.stdout.write(
      `pruned ${resolve(dataDir)}: head ${result.head}, keeping blocks from ${result.oldestKept} on; deleted ${result.receiptsDeleted} receipts and ${result.historyDeleted} historical state values; the archive flag is cleared\n`,
    );
  });

cli.command('version', 'print the version').action(() => {
  process.stdout.write(`svc-node ${VERSION}\n`);
});

cli.help();
cli.version(VERSION);

exitQuietlyOnClosedPipe();
try {
  if (printActionHelp(cli, 'svc-node', process.argv)) process.exit(0);
  parseArgs(cli, process.argv);
  if (!cli.matchedCommand && cli.args.length > 0)
    throw new UsageError(`unknown command "${cli.args[0]}" (see svc-node --help)`);
  if (!cli.matchedCommand && !cli.options.help && !cli.options.version) cli.outputHelp();
  await cli.runMatchedCommand();
} catch (error) {
  fail(error);
}

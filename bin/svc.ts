#!/usr/bin/env node
import { createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { cac } from 'cac';
import { printActionHelp } from './action-help.js';
import {
  accountText,
  amountOption,
  exitQuietlyOnClosedPipe,
  integerText,
  optionText,
  parseArgs,
  readKeyFile,
  UsageError,
} from './cli-args.js';
import { addUpgradeCommand } from './upgrade-command.js';
import { addValidatorCommand } from './validator-command.js';
import { describeReceipt, describeRecord } from './human.js';
import { addJobCommand } from './job-command.js';
import { addContractCommand } from './contract-command.js';
import WebSocket from 'ws';
import { SvcWsClient, type WebSocketConstructor } from '../sdk/ws-client.js';
import {
  ASSETS,
  DEVNET_ACCOUNTS,
  devnetKey,
  formatAmountShort,
  payloadInTokens,
  generateKeyPair,
  RpcError,
  SvcClient,
  toHex,
  type Asset,
  type ComputeProvider,
  type ComputeRegistration,
  type ComputeStatus,
  type DealView,
  type KeyPair,
  type StorageProvider,
  type StorageRegistration,
  type StorageStatus,
} from '../sdk/index.js';
import { VERSION } from '../kernel/version.js';
import { waitingFor, type Submitted } from './wait-for.js';
import { speaksTls } from './tls-probe.js';
import {
  bondOption,
  listOption,
  positiveNumberOption,
  providerAction,
  type ProviderCommandContext,
  type ProviderKind,
  type ProviderOptions,
} from './provider-command.js';

interface GlobalOptions {
  url?: unknown;
  caFile?: unknown;
  json?: boolean;
}

function urlOf(options: GlobalOptions): string {
  return optionText(options.url, '--url') ?? process.env.SVC_RPC_URL ?? 'http://127.0.0.1:8545';
}

/** The CA to trust for an https:// or wss:// node: --ca-file, else SVC_CA_FILE. */
function caOf(options: GlobalOptions): string | undefined {
  const file = optionText(options.caFile, '--ca-file') ?? (process.env.SVC_CA_FILE || undefined);
  if (file === undefined) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `${options.caFile !== undefined ? '--ca-file' : 'SVC_CA_FILE'} ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

/** `--url <url>` as typed, for a follow-up command to reach the same node (empty for the default). */
function urlFlag(options: GlobalOptions): string {
  const url = optionText(options.url, '--url');
  return url === undefined ? '' : ` --url ${url}`;
}

/** A submitted transaction, followed up by its receipt. */
function submittedTx(options: GlobalOptions, hash: string): Submitted {
  return { noun: 'transaction', id: hash, followUp: `svc receipt ${hash}${urlFlag(options)}` };
}

function client(options: GlobalOptions): SvcClient {
  return new SvcClient({ url: urlOf(options), ca: caOf(options) });
}

function print(options: GlobalOptions, value: unknown, human: () => string): void {
  process.stdout.write(
    `${options.json ? JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) : human()}\n`,
  );
}

function signer(options: { keyFile?: unknown; devAccount?: unknown }): KeyPair {
  if (options.keyFile !== undefined && options.devAccount !== undefined)
    throw new UsageError('give --key-file or --dev-account, not both');
  if (options.devAccount !== undefined)
    return devnetKey('account', integerText(options.devAccount, '--dev-account', 0, DEVNET_ACCOUNTS - 1));
  const file = optionText(options.keyFile, '--key-file');
  if (file === undefined) throw new UsageError('a signer is needed: --key-file <file> or --dev-account <index>');
  return readKeyFile(file, '--key-file');
}

/** One of `allowed`, case as typed; the error lists them. */
function choiceOption<T extends string>(value: unknown, flag: string, allowed: readonly T[]): T {
  const text = optionText(value, flag);
  if (text === undefined || !allowed.includes(text as T))
    throw new UsageError(`${flag}: expected one of ${allowed.join(', ')}, got "${text ?? ''}"`);
  return text as T;
}

const cli = cac('svc');
cli
  .option('--url <url>', 'node URL, http(s):// (default $SVC_RPC_URL, else http://127.0.0.1:8545)')
  .option('--ca-file <file>', 'PEM certificate of the authority to trust for an https:// node (default $SVC_CA_FILE)')
  .option('--json', 'machine-readable output');

cli
  .command('rpc <method> [paramsJson]', 'call any JSON-RPC method; params as a JSON array; prints the result as JSON')
  .action(async (method: string, paramsJson: string | undefined, options: GlobalOptions) => {
    let params: unknown = [];
    if (paramsJson !== undefined) {
      try {
        params = JSON.parse(String(paramsJson));
      } catch {
        throw new UsageError(`paramsJson: not valid JSON: ${String(paramsJson)}`);
      }
      if (!Array.isArray(params)) throw new UsageError('paramsJson: must be a JSON array of positional params');
    }
    const result = await client(options).rpcCall(method, params as unknown[]);
    print(options, result, () => JSON.stringify(result, null, 2));
  });

cli.command('block-number', 'height of the head block').action(async (options: GlobalOptions) => {
  const height = await client(options).blockNumber();
  print(options, height, () => String(height));
});

cli
  .command('block <ref>', 'a block by height, hash, or "latest"')
  .action(async (ref: string | number, options: GlobalOptions) => {
    const text = String(ref);
    const c = client(options);
    const block = text.startsWith('0x')
      ? await c.getBlockByHash(text)
      : await c.getBlockByNumber(text === 'latest' ? 'latest' : integerText(text, 'block'));
    print(options, block, () => describeRecord(block));
  });

cli
  .command('balance <address>', 'OMC and OGT balances')
  .option('--block <n>', 'at a past block')
  .action(async (address: string, options: GlobalOptions & { block?: unknown }) => {
    const balance = await client(options).getBalance(
      accountText(address),
      options.block === undefined ? undefined : integerText(options.block, '--block'),
    );
    const bonds = Object.entries(balance.bonded).map(([purpose, units]) => `${purpose} ${formatAmountShort(units)}`);
    print(options, balance, () =>
      [
        `${balance.address} at block ${balance.blockNumber}`,
        `  OMC ${balance.balanceOMC}`,
        `  OGT ${balance.balanceOGT}`,
        ...(bonds.length ? [`  bonded OGT ${balance.bondedOGT} (${bonds.join(', ')})`] : []),
      ].join('\n'),
    );
  });

cli
  .command('nonce <address>', 'the nonce the next transaction should carry')
  .action(async (address: string, options: GlobalOptions) => {
    const nonce = await client(options).getNonce(accountText(address));
    print(options, nonce, () => String(nonce));
  });

cli
  .command('faucet <address>', 'ask the devnet faucet for a grant (10 OMC + 5 OGT)')
  .option('--wait', 'wait until a block includes the grant')
  .action(async (address: string, options: GlobalOptions & { wait?: boolean }) => {
    const c = client(options);
    const grant = await c.faucetRequest(accountText(address));
    const receipt = options.wait
      ? await waitingFor(submittedTx(options, grant.txHash), () => c.waitForTransaction(grant.txHash))
      : undefined;
    print(
      options,
      { ...grant, ...(receipt ? { receipt } : {}) },
      () =>
        `funded: ${grant.omcMinted} OMC + ${grant.ogtMinted} OGT (tx ${grant.txHash}${receipt ? `, block ${receipt.blockNumber}` : ', in the next block'})`,
    );
  });

cli
  .command('transfer', 'send OMC or OGT')
  .option('--to <address>', 'recipient')
  .option('--amount <tokens>', 'amount in tokens, e.g. 1.5')
  .option('--asset <asset>', 'OMC or OGT', { default: 'OMC' })
  .option('--key-file <file>', 'signer key file (from `svc keys new --out`)')
  .option('--dev-account <index>', 'sign with a devnet dev account (0-9)')
  .option('--wait', 'wait for the receipt')
  .action(
    async (
      options: GlobalOptions & {
        to?: unknown;
        amount?: unknown;
        asset?: unknown;
        keyFile?: unknown;
        devAccount?: unknown;
        wait?: boolean;
      },
    ) => {
      if (options.to === undefined) throw new UsageError('--to <address> is required');
      const asset = choiceOption(String(optionText(options.asset, '--asset')).toUpperCase(), '--asset', ASSETS);
      const amount = amountOption(options.amount, '--amount', asset);
      const key = signer(options);
      const c = client(options);
      const to = accountText(optionText(options.to, '--to'));
      const tx = await c.transfer(key, to, asset as Asset, amount);
      const receipt = options.wait
        ? await waitingFor(submittedTx(options, tx.hash), () => c.waitForTransaction(tx.hash))
        : undefined;
      print(options, { hash: tx.hash, from: tx.from, nonce: tx.nonce, ...(receipt ? { receipt } : {}) }, () =>
        receipt
          ? `${receipt.status === 'success' ? 'sent' : `failed (${receipt.error?.name}: ${receipt.error?.reason})`}: ${formatAmountShort(amount)} ${asset} to ${to} in block ${receipt.blockNumber} (tx ${tx.hash})`
          : `submitted: ${formatAmountShort(amount)} ${asset} to ${to} (tx ${tx.hash})`,
      );
      if (receipt?.status === 'failed') process.exitCode = 1;
    },
  );

cli.command('tx <hash>', 'a transaction, pending or mined').action(async (hash: string, options: GlobalOptions) => {
  const tx = await client(options).getTransaction(String(hash));
  // Amounts in tokens for a person; --json keeps base units.
  // viem only for an Ethereum transaction's bytes: the CLI starts without it otherwise.
  const { parseTransaction } = tx.kind === 'evm.ethereum' ? await import('viem') : { parseTransaction: undefined };
  print(options, tx, () => {
    const shown: Record<string, unknown> = { ...tx, payload: payloadInTokens(tx.kind, tx.payload) };
    // The chain's id is not what an Ethereum transaction signs for: its EVM chain id is in its bytes.
    const rlp = tx.payload.rlp;
    if (parseTransaction && typeof rlp === 'string')
      shown.chainId = `${tx.chainId} (the transaction signs for EVM chain id ${parseTransaction(rlp as `0x${string}`).chainId})`;
    return describeRecord(shown);
  });
});

cli
  .command('txs <address>', "an account's mined transactions, newest first (signed by it or naming it)")
  .option('--limit <n>', 'how many (at most 100)', { default: 25 })
  .option('--cursor <cursor>', 'the next page: the cursor a previous listing printed')
  .action(async (address: string, options: GlobalOptions & { limit: number; cursor?: string }) => {
    const page = await client(options).listTransactions(accountText(address), {
      limit: Number(options.limit),
      ...(options.cursor !== undefined ? { cursor: String(options.cursor) } : {}),
    });
    print(options, page, () => {
      const lines = page.transactions.map((tx) => `${tx.blockNumber}\t${tx.hash}\t${tx.kind}\tfrom ${tx.from}`);
      if (lines.length === 0) lines.push('no transactions');
      if (page.cursor) lines.push(`more: --cursor ${page.cursor}`);
      if (page.indexedFrom > 0) lines.push(`(this node indexes accounts from block ${page.indexedFrom})`);
      return lines.join('\n');
    });
  });

cli.command('receipt <hash>', "a mined transaction's receipt").action(async (hash: string, options: GlobalOptions) => {
  const receipt = await client(options).getTransactionReceipt(String(hash));
  print(options, receipt, () => describeReceipt(receipt));
});

cli
  .command('watch <what>', '`watch heads`: print new heads as they come (Ctrl-C stops)')
  .option('--from <height>', 'first replay stored heads from this height')
  .action(async (what: string, options: GlobalOptions & { from?: unknown }) => {
    if (what !== 'heads') throw new UsageError(`unknown stream "${what}" (expected: heads)`);
    const url = urlOf(options).replace(/^http/, 'ws');
    const ws = new SvcWsClient({ url, ca: caOf(options), WebSocket: WebSocket as unknown as WebSocketConstructor });
    const heads = await ws.subscribeHeads(
      options.from === undefined ? {} : { fromBlock: integerText(options.from, '--from') },
    );
    process.on('SIGINT', () => {
      ws.close();
      process.exit(0);
    });
    for await (const head of heads) {
      print(
        options,
        head,
        () => `#${head.height} ${head.hash} ${head.transactionCount} tx ${new Date(head.timestamp).toISOString()}`,
      );
    }
  });

cli.command('chain-info', 'network, chain id, genesis, head').action(async (options: GlobalOptions) => {
  const info = await client(options).chainInfo();
  print(options, info, () => describeRecord(info));
});

cli
  .command('node-info [field]', 'role, plugins, peer id, operator of the node; with a field name, just that field')
  .action(async (field: string | undefined, options: GlobalOptions) => {
    const info = await client(options).nodeInfo();
    if (field === undefined) return print(options, info, () => describeRecord(info));
    if (!(field in info))
      throw new UsageError(`node-info: no field "${field}" (fields: ${Object.keys(info).join(', ')})`);
    const value = info[field as keyof typeof info];
    print(options, value, () =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? describeRecord(value)
        : String(Array.isArray(value) ? value.join('\n') : value),
    );
  });

/** `omp put`'s price without --price: 0.001 OMC per MB (10^6 bytes) per 1,000 blocks of the term, at least 0.000001 OMC. */
const DEFAULT_PRICE_WORDS = '0.001 OMC per MB per 1,000 blocks, at least 0.000001 OMC';
function defaultDealPrice(bytes: number, durationBlocks: number): bigint {
  // 10^15 base units / (10^6 bytes × 10^3 blocks) = 10^6 base units per byte-block.
  const price = BigInt(bytes) * BigInt(durationBlocks) * 1_000_000n;
  return price > 1_000_000_000_000n ? price : 1_000_000_000_000n;
}

type ObjectOptions = {
  replicas?: unknown;
  duration?: unknown;
  price?: unknown;
  keyFile?: unknown;
  devAccount?: unknown;
  out?: unknown;
};

function describeDeal(deal: DealView): string {
  const providers = deal.providers.map(
    (r) =>
      `${r.provider}  ${r.acceptedAt === null ? 'not accepted' : `accepted at ${r.acceptedAt}`}, ${r.faults} fault(s)${r.faulty ? ' (faulty)' : ''}, paid ${formatAmountShort(BigInt(r.paid))} OMC`,
  );
  return [
    `deal ${deal.dealId}: ${deal.status}${deal.reason ? ` (${deal.reason})` : ''}`,
    `object    ${deal.cid}, ${deal.size} bytes, ${deal.mediaType}`,
    `term      ${deal.startBlock === null ? `${deal.durationBlocks} blocks once accepted` : `blocks ${deal.startBlock} to ${deal.endBlock}`}`,
    `price     ${formatAmountShort(BigInt(deal.price))} OMC per replica, ${formatAmountShort(BigInt(deal.paid))} paid, ${formatAmountShort(BigInt(deal.escrow))} in escrow`,
    ...providers.map((line, i) => `${i === 0 ? 'providers' : '         '} ${line}`),
  ].join('\n');
}

/** `omp put <file>` (and a deal with --replicas/--duration/--price), `omp get <cid>`, `omp deal <id>`. */
async function objectAction(
  c: SvcClient,
  action: 'put' | 'get' | 'deal',
  target: string | undefined,
  options: GlobalOptions & ObjectOptions & { wait?: boolean },
): Promise<void> {
  if (!target)
    throw new UsageError(
      `omp ${action} needs ${action === 'put' ? 'a file' : action === 'get' ? 'a CID' : 'a deal id'}`,
    );
  const dealWait = (dealId: string) =>
    waitingFor({ noun: 'deal', id: dealId, followUp: `svc omp deal ${dealId} --wait${urlFlag(options)}` }, () =>
      c.waitForDeal(dealId, { timeoutMs: 600_000 }),
    );
  if (action === 'deal') {
    const deal = options.wait ? await dealWait(target) : await c.getDeal(target);
    return print(options, deal, () => describeDeal(deal));
  }
  if (action === 'get') {
    const bytes = await c.fetchObject(target);
    const out = optionText(options.out, '--out');
    if (!out) return void process.stdout.write(bytes);
    writeFileSync(out, bytes);
    return print(options, { file: out, bytes: bytes.length }, () => `wrote ${bytes.length} bytes to ${out}`);
  }
  if (!existsSync(target)) throw new UsageError(`omp put ${target}: no such file`);
  const wantsDeal = options.replicas !== undefined || options.duration !== undefined || options.price !== undefined;
  // Checked before the upload, so a mistyped flag costs no transfer.
  const deal = wantsDeal
    ? {
        replicas: integerText(options.replicas ?? '1', '--replicas', 1, 3),
        durationBlocks: integerText(options.duration, '--duration', 10, 10_000_000),
        price: options.price === undefined ? undefined : amountOption(options.price, '--price', 'OMC'),
        key: signer(options),
      }
    : undefined;
  const object = await c.uploadObject(Readable.toWeb(createReadStream(target)) as ReadableStream<Uint8Array>);
  if (!deal) return print(options, object, () => `${object.cid}  ${object.size} bytes  ${object.mediaType}`);
  if (deal.price === undefined) {
    deal.price = defaultDealPrice(object.size, deal.durationBlocks);
    // Said before the deal is signed: what it will cost, and how to choose otherwise.
    process.stderr.write(
      `price ${formatAmountShort(deal.price)} OMC per replica (the default: ${DEFAULT_PRICE_WORDS}; --price to choose)\n`,
    );
  }
  const { operator } = await c.ompStorageStatus();
  if (!operator) throw new UsageError('the node is not a storage provider: upload to a registered storage node');
  const { dealId } = await c.createDeal(deal.key, {
    object,
    provider: operator,
    replicas: deal.replicas,
    durationBlocks: deal.durationBlocks,
    price: deal.price!,
  });
  if (!options.wait)
    return print(
      options,
      { ...object, dealId },
      () => `${object.cid}  ${object.size} bytes  ${object.mediaType}\ndeal ${dealId}`,
    );
  const settled = await dealWait(dealId);
  print(
    options,
    { ...object, deal: settled },
    () => `${object.cid}  ${object.size} bytes  ${object.mediaType}\n${describeDeal(settled)}`,
  );
  if (settled.status !== 'active') process.exitCode = 1;
}

type ProviderCliOptions = ProviderOptions & GlobalOptions;
const providerContext: ProviderCommandContext<ProviderCliOptions> = { client, urlFlag, print };

const COMPUTE_PROVIDER: ProviderKind<ProviderCliOptions, ComputeStatus, ComputeProvider, ComputeRegistration> = {
  group: 'oon',
  noun: 'compute',
  registration: (options) => {
    const capabilities = listOption(options.capabilities, '--capabilities', ['wasm', 'evm'] as const);
    const bond_ogt = bondOption(options.bond);
    if (options.maxJobs === undefined) throw new UsageError('--max-jobs <n> is required');
    return { operator: '', capabilities, bond_ogt, max_concurrent_jobs: integerText(options.maxJobs, '--max-jobs', 1) };
  },
  register: (c, operator, registration) => c.oonRegisterNode({ ...registration, operator }),
  status: (c) => c.oonNodeStatus(),
  unregister: (c) => c.oonUnregisterNode(),
  providers: (c) => c.oonListProviders(),
  details: (s) =>
    `runtimes  ${s.capabilities.join(', ')}\njobs      ${s.activeJobs} running, ${s.completedJobs} done, at most ${s.max_concurrent_jobs}`,
  describeProvider: (p) =>
    `${p.operator}  ${p.bond_ogt} OGT  ${p.capabilities.join(',')}  jobs ${p.max_concurrent_jobs}  peer ${p.peerId}`,
};

const STORAGE_PROVIDER: ProviderKind<ProviderCliOptions, StorageStatus, StorageProvider, StorageRegistration> = {
  group: 'omp',
  noun: 'storage',
  registration: (options) => ({
    operator: '',
    supported_formats: listOption(options.formats, '--formats', ['image', 'video', 'document'] as const),
    bond_ogt: bondOption(options.bond),
    storage_capacity_gb: positiveNumberOption(options.capacityGb, '--capacity-gb'),
  }),
  register: (c, operator, registration) => c.ompRegisterStorageNode({ ...registration, operator }),
  status: (c) => c.ompStorageStatus(),
  unregister: (c) => c.ompUnregisterStorageNode(),
  providers: (c) => c.ompListProviders(),
  details: (s) =>
    `capacity  ${s.storage_capacity_gb} GB (${s.usedBytes} bytes in ${s.objects} objects)\nformats   ${s.supported_formats.join(', ')}`,
  describeProvider: (p) =>
    `${p.operator}  ${p.bond_ogt} OGT  ${p.storage_capacity_gb} GB  ${p.supported_formats.join(',')}  peer ${p.peerId}`,
};

cli
  .command('oon <action>', 'compute provider: `oon register`, `oon status`, `oon unregister`, `oon providers`')
  .option('--operator <address>', "operator account (default: the node's own operator key)")
  .option('--capabilities <list>', 'register: wasm,evm')
  .option('--bond <ogt>', 'register: OGT to bond (at least 1000)')
  .option('--max-jobs <n>', 'register: most jobs at once')
  .option('--wait', 'register/unregister: wait until the change is in a block')
  .action(async (action: string, options: ProviderCliOptions) => {
    if (await providerAction(providerContext, COMPUTE_PROVIDER, action, options)) return;
    throw new UsageError(`unknown oon action "${action}" (expected one of register, status, unregister, providers)`);
  });

cli
  .command(
    'omp <action> [target]',
    'storage: `omp register`, `omp status`, `omp unregister`, `omp providers`; objects: `omp put <file>`, `omp get <cid>`, `omp deal <dealId>`',
  )
  .option('--operator <address>', "operator account (default: the node's own operator key)")
  .option('--replicas <n>', 'put: make a deal of this many replicas (1-3) for the object')
  .option('--duration <blocks>', "put: the deal's term, blocks")
  .option(
    '--price <omc>',
    'put: OMC per replica for the whole term (default: 0.001 OMC per MB per 1,000 blocks, at least 0.000001 OMC; printed before the deal is signed)',
  )
  .option('--key-file <file>', "put: the paying client's key file")
  .option('--dev-account <index>', 'put: pay with a devnet dev account (0-9)')
  .option('-o, --out <file>', 'get: write the object to a file instead of stdout')
  .option('--capacity-gb <n>', 'register: storage offered, GB')
  .option('--formats <list>', 'register: image,video,document')
  .option('--bond <ogt>', 'register: OGT to bond (at least 500)')
  .option('--wait', 'register/unregister: wait until the change is in a block')
  .action(async (action: string, target: string | undefined, options: ProviderCliOptions & ObjectOptions) => {
    const c = client(options);
    if (action === 'put' || action === 'get' || action === 'deal') return objectAction(c, action, target, options);
    if (await providerAction(providerContext, STORAGE_PROVIDER, action, options)) return;
    throw new UsageError(
      `unknown omp action "${action}" (expected one of register, status, unregister, providers, put, get, deal)`,
    );
  });

cli
  .command('peers', "the node's connected peers and the heads they announce")
  .action(async (options: GlobalOptions) => {
    const peers = await client(options).peers();
    print(options, peers, () =>
      peers.length === 0
        ? 'no peers'
        : peers
            .map((p) => `${p.peerId}  ${p.direction}  head ${p.head ? p.head.height : '?'}  ${p.addresses.join(' ')}`)
            .join('\n'),
    );
  });

cli.command('syncing', 'whether the node is synced, else its sync progress').action(async (options: GlobalOptions) => {
  const status = await client(options).syncing();
  print(options, status, () =>
    status === false
      ? 'synced'
      : `syncing: block ${status.currentBlock} of ${status.highestBlock} (started at ${status.startingBlock})`,
  );
});

cli
  .command('keys <action>', '`keys new`: generate an Ed25519 key and its address')
  .option('--out <file>', 'write the key to this file (mode 0600) instead of printing the secret')
  .action((action: string, options: GlobalOptions & { out?: unknown }) => {
    if (action !== 'new') throw new UsageError(`unknown keys action "${action}" (expected: new)`);
    const key = generateKeyPair();
    const record = { address: key.address, publicKey: toHex(key.publicKey), secretKey: toHex(key.secretKey) };
    if (options.out !== undefined) {
      writeFileSync(String(options.out), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      print(
        options,
        { address: key.address, publicKey: record.publicKey, file: String(options.out) },
        () => `${key.address}\nkey written to ${String(options.out)}`,
      );
      return;
    }
    print(
      options,
      record,
      () => `address     ${record.address}\npublic key  ${record.publicKey}\nsecret key  ${record.secretKey}`,
    );
  });

addJobCommand(cli, { client, urlOf, urlFlag, signer, print });
addContractCommand(cli, { client, signer, print, urlFlag });
addValidatorCommand(cli, { client, urlOf, urlFlag, signer, print });
addUpgradeCommand(cli, { client, urlOf, urlFlag, signer, print });

cli.help();
cli.version(VERSION);

exitQuietlyOnClosedPipe();
try {
  if (printActionHelp(cli, 'svc', process.argv)) process.exit(0);
  parseArgs(cli, process.argv);
  if (!cli.matchedCommand && cli.args.length > 0)
    throw new UsageError(`unknown command "${cli.args[0]}" (see svc --help)`);
  if (!cli.matchedCommand && !cli.options.help && !cli.options.version) cli.outputHelp();
  await cli.runMatchedCommand();
} catch (error) {
  const usage = error instanceof UsageError || (error instanceof Error && error.name === 'CACError');
  const json = process.argv.includes('--json');
  if (error instanceof RpcError) {
    // Refused by the SDK before anything was sent (`data.given`): an argument typed wrong, exit 2.
    const typed = error.data?.given;
    if (json) process.stderr.write(`${JSON.stringify({ error: error.toJSON() })}\n`);
    else
      process.stderr.write(
        `svc: ${error.message} (${error.code}): ${error.data?.reason ?? ''}${typed === undefined ? '' : `, got "${String(typed)}"`}\n`,
      );
    process.exit(typed === undefined ? 1 : 2);
  }
  const message = (error as Error).message;
  let hint = '';
  if (/^cannot reach https:.*certificate is not trusted/.test(message))
    hint = "trust the node's certificate authority with --ca-file <file> or SVC_CA_FILE";
  // A TLS port hangs up on plain HTTP: say so, rather than leave "other side closed".
  const url = /^cannot reach (http:\/\/\S+?): /.exec(message)?.[1];
  if (url && (await speaksTls(url)))
    hint = `${new URL(url).host} speaks HTTPS: use --url ${url.replace(/^http:/, 'https:')}`;
  if (json)
    process.stderr.write(
      `${JSON.stringify({ error: { message, kind: usage ? 'usage' : 'failure', ...(hint ? { hint } : {}) } })}\n`,
    );
  else process.stderr.write(`svc: ${message}${hint ? ` (${hint})` : ''}\n`);
  process.exit(usage ? 2 : 1);
}

import { DEVNET_ACCOUNTS } from '../sdk/keys.js';
import Type, { type Static } from 'typebox';
import type { SignedTransaction } from '../sdk/transaction.js';
import { normalizeAddress, toEthAddress } from '../sdk/address.js';
import { fromHex, type Hex } from '../sdk/bytes.js';
import { formatAmountShort } from '../sdk/amount.js';
import { domainError } from '../sdk/errors.js';
import { definePlugin, optionalParam, param } from '../kernel/plugin.js';
import { accountKey, readBalances } from './state/accounts.js';
import { WorldState } from './state/world-state.js';
import { BlockStore } from './block-store.js';
import { CHAIN_LAYOUTS, openChainLayouts } from './layouts.js';
import { Chain } from './chain.js';
import type {
  BlockImport,
  BlockProduction,
  BlockReader,
  ChainReader,
  ChainRewind,
  ChainViews,
  ConsensusChain,
  ConsensusRules,
  HistoryKeeping,
  StateSnapshots,
  TxSubmitter,
} from './capabilities.js';
import { chainSubscriptions } from './subscriptions.js';
import {
  envelopeContext,
  TEST_ACCOUNT_OMC,
  TEST_MNEMONIC_ACCOUNTS,
  withPluginGenesis,
  type GenesisSpec,
} from './genesis.js';
import { DEFAULT_MEMPOOL, Mempool } from './mempool.js';
import { TxDecoder } from './tx-decoder.js';
import { ReceiptSchema } from './receipts.js';
import {
  AddressSchema,
  BalanceSchema,
  RawTransactionSchema,
  BlockSchema,
  BlockTagSchema,
  CommitCertificateSchema,
  ChainInfoSchema,
  HashSchema,
  TransactionSchema,
  TransferPayloadSchema,
} from './schemas.js';
import { TxKindRegistry } from './tx-kinds.js';
import { submitFromClient } from './client-submit.js';
import { TxJournal } from './tx-journal.js';
import { SUMMARY_EVERY_MS } from './block-activity.js';
import { CHAIN_ERRORS } from './errors.js';
import { knowsRulesVersion, RULES_VERSIONS } from './rules-version.js';

declare module '../kernel/plugin.js' {
  interface SvcCapabilities {
    chain: Chain;
    'chain-reader': ChainReader;
    'tx-submitter': TxSubmitter;
    'block-production': BlockProduction;
    'block-import': BlockImport;
    'chain-rewind': ChainRewind;
    'block-reader': BlockReader;
    'chain-views': ChainViews;
    'consensus-chain': ConsensusChain;
    'consensus-rules': ConsensusRules;
    'history-keeping': HistoryKeeping;
    'state-snapshots': StateSnapshots;
  }
}

export interface ChainSettings {
  /** Blocks of receipts and state history kept without the archive capability. */
  readonly historyBlocks: number;
  readonly maxBlockTransactions?: number;
  /** The journal of acknowledged transactions (none: a throw-away node, or turned off). */
  readonly journal?: { readonly path: string; readonly maxBytes: number };
  /** Stop before this block (`--halt-height`). */
  readonly haltHeight?: number;
  /**
   * A built-in genesis (the devnet's) starts on the release's newest rules version; a data dir an
   * earlier release made of it started on an earlier one, and keeps it (while this release implements it).
   */
  readonly genesisVersionFromDataDir?: boolean;
}

/**
 * The chain as a plugin: blocks, world state, mempool, the core `transfer` kind and the RPC methods
 * that read and submit. Always loaded; the composition root hands it the genesis.
 */
export function chainPlugin(baseGenesis: GenesisSpec, settings: ChainSettings = { historyBlocks: 10_000 }) {
  return definePlugin({
    name: 'chain',
    errors: CHAIN_ERRORS,
    version: '1.0.0',
    description: 'the chain: blocks, world state, mempool, transfers; reading and submitting RPC methods',
    provides: [
      'chain',
      'chain-reader',
      'tx-submitter',
      'block-production',
      'block-import',
      'chain-rewind',
      'block-reader',
      'chain-views',
      'consensus-chain',
      'consensus-rules',
      'history-keeping',
      'state-snapshots',
    ],
    namespaces: Object.values(CHAIN_LAYOUTS),
    // The rules schedule (`chain/rulesSchedule`) is the chain's; the upgrade plans' rules extend it.
    stateDelegates: ['upgrade'],
    events: {
      'chain:decided': 'a block is decided and executed; its write is under way',
      'chain:block': 'a block and all its state are committed',
      'chain:rewound': "the chain went back to an earlier block (dev mode's revert)",
      'chain:restored': 'a node that held only its genesis begins at a snapshot block, its state restored (state sync)',
      'chain:pendingTransaction': 'a transaction entered the mempool',
      'chain:journalReplayed':
        "at start, the journal's acknowledged transactions are pending again (and which lost their nonce while the node was down)",
    },
    async init(ctx) {
      // Every plugin's transaction kinds and end-of-block steps are chain rules: collected here.
      const kinds = TxKindRegistry.collect(ctx.plugins);
      const ns = openChainLayouts((name) => ctx.namespace(name));
      const blocks = new BlockStore(ns);
      const written = settings.genesisVersionFromDataDir ? await blocks.rulesVersion() : undefined;
      const base =
        written !== undefined && written !== baseGenesis.rulesVersion && knowsRulesVersion(written)
          ? { ...baseGenesis, rulesVersion: written }
          : baseGenesis;
      // So are their genesis entries: every node of the network computes the same block 0.
      const genesis = withPluginGenesis(
        base,
        ctx.plugins.map((entry) => entry.definition),
      );
      const state = new WorldState(ns.stateEntries, ns.stateHistory, ns.statePrunable, {
        archive: false,
        historyBlocks: settings.historyBlocks,
      });
      // What is admitted now runs in the block after the head (built below: the mempool asks when a transaction comes).
      const mempool: Mempool = new Mempool({
        state,
        kinds,
        chainId: genesis.chainId,
        options: DEFAULT_MEMPOOL,
        rulesVersion: (): number => chain.rulesVersionAt(chain.head.height + 1),
      });
      const envelope = envelopeContext(genesis);
      const decoder = new TxDecoder(1, envelope);
      ctx.signal.addEventListener('abort', () => void decoder.close());
      const chain: Chain = new Chain({
        batch: () => ctx.batch(),
        blocks,
        state,
        mempool,
        decoder,
        envelope,
        kinds,
        genesis,
        events: ctx.events,
        log: ctx.log,
        maxBlockTransactions: settings.maxBlockTransactions ?? 20_000,
        historyBlocks: settings.historyBlocks,
        haltHeight: settings.haltHeight,
        // A block this node must not execute: it stops, and the process exits with the halt's code.
        onHalt: (halt) => ctx.requestExit(halt.message, halt.exitCode),
      });
      const { created } = await chain.open();
      if (created) {
        ctx.log.info({ genesis: chain.head.hash, chainId: genesis.chainId }, 'wrote genesis block');
        if (genesis.network === 'devnet') {
          // Like other dev chains, name the well-known prefunded accounts once, when the chain is created.
          const dev = genesis.accounts.slice(0, DEVNET_ACCOUNTS);
          const first = dev[0];
          const funds = first
            ? ` with ${formatAmountShort(first.omc)} OMC and ${formatAmountShort(first.ogt)} OGT each`
            : '';
          ctx.log.info(
            { accounts: dev.map((account) => account.address) },
            `devnet: ${dev.length} dev accounts${funds}, public test keys from the published dev seed (never hold value with them); sign with \`svc transfer --dev-account <0-${dev.length - 1}>\``,
          );
          ctx.log.info(dev.map((account, i) => `${i} ${account.address}`).join('  '));
          ctx.log.info(
            { accounts: TEST_MNEMONIC_ACCOUNTS.map((address) => toEthAddress(address, true)) },
            `devnet: the ${TEST_MNEMONIC_ACCOUNTS.length} accounts of the test mnemonic "test test … junk" (Foundry's and Hardhat's default keys) with ${formatAmountShort(TEST_ACCOUNT_OMC)} OMC each; EVM chain id ${envelope.evmChainId ?? 'none'}`,
          );
        }
      }
      ctx.log.info({ height: chain.head.height, hash: chain.head.hash, stateEntries: state.size }, 'chain open');
      const summary = setInterval(() => chain.activity.report(ctx.log, chain.head.height), SUMMARY_EVERY_MS);
      summary.unref();
      ctx.signal.addEventListener('abort', () => {
        clearInterval(summary);
        chain.activity.report(ctx.log, chain.head.height);
      });
      return chain;
    },
    async recover(chain, ctx) {
      if (!settings.journal) return;
      const { journal, records } = await TxJournal.open(
        settings.journal.path,
        { maxBytes: settings.journal.maxBytes },
        ctx.log,
      );
      if (records.length === 0) {
        await chain.replayJournal(journal, records);
        return;
      }
      const started = performance.now();
      const done = await chain.replayJournal(journal, records);
      const ms = Math.round(performance.now() - started);
      ctx.log.info(
        { ...done, ms },
        `journal: ${done.replayed} acknowledged transactions pending again (${done.mined} mined before the stop, ${done.superseded} whose nonce another transaction took, ${done.expired} expired, ${done.invalid} no longer valid), ${ms} ms`,
      );
    },
    start: (chain) => chain.checkArchiveFlag(),
    stop: (chain) => chain.closeJournal(),
    health: (chain) => ({
      rulesVersion: chain.rulesVersionAt(chain.head.height + 1),
      head: chain.head.height,
      headHash: chain.head.hash,
      lastBlockAgeMs: Math.max(0, Date.now() - chain.head.timestamp),
      pendingTransactions: chain.mempool.size,
      ...(chain.journalBytes === undefined ? {} : { journalBytes: chain.journalBytes }),
    }),
    subscriptions: (kind) => chainSubscriptions(kind),
    txKinds: (kind) => [
      kind({
        kind: 'transfer',
        summary: 'moves an amount of OMC or OGT from the signer to another account',
        payload: TransferPayloadSchema,
        debits: (payload) => [{ asset: payload.asset, amount: BigInt(payload.amount) }],
        execute(ctx) {
          const amount = BigInt(ctx.payload.amount);
          ctx.debit(ctx.tx.from, ctx.payload.asset, amount);
          ctx.credit(normalizeAddress(ctx.payload.to), ctx.payload.asset, amount);
        },
      }),
    ],
    rpc: (method) => [
      method({
        name: 'svc_blockNumber',
        summary: 'Height of the head block.',
        params: [],
        result: Type.Integer({ minimum: 0 }),
        handler: (_params, { service }) => service.head.height,
      }),
      method({
        name: 'svc_getBlockByNumber',
        summary:
          'A block by height, the head with "latest" or "finalized" (the same block: committed blocks are final), or block 0 with "earliest".',
        params: [param('blockNumber', BlockTagSchema)],
        result: BlockSchema,
        errors: ['invalid_params', 'not_found', 'pruned'],
        handler: async ([rawTag], { service }) => {
          if (rawTag === 'latest' || rawTag === 'finalized') return service.head;
          const tag = service.heightOf(rawTag);
          if (tag > service.genesisHeight && tag < service.baseHeight)
            throw domainError(
              'pruned',
              `block ${tag} is before block ${service.baseHeight}, where this node began from a state snapshot; ask a node that keeps it`,
              { oldest: service.baseHeight },
            );
          const block = tag > service.head.height ? undefined : await service.getBlock(tag);
          if (!block)
            throw domainError('not_found', `block ${tag} does not exist yet (head is ${service.head.height})`, {
              blockNumber: tag,
            });
          return block;
        },
      }),
      method({
        name: 'svc_getCommit',
        summary:
          'The commit certificate of a block: the precommits of more than 2/3 of the voting power that made it final, as this node committed it (the next block carries one too, as `lastCommit`).',
        params: [param('blockNumber', BlockTagSchema)],
        result: CommitCertificateSchema,
        errors: ['invalid_params', 'not_found'],
        handler: async ([rawTag], { service }) => {
          const height = service.heightOf(rawTag);
          if (height === service.genesisHeight)
            throw domainError(
              'not_found',
              `block ${height} (the genesis) has no commit certificate: it is final by definition`,
              { blockNumber: height },
            );
          const commit = height > service.head.height ? undefined : await service.getCommit(height);
          if (!commit)
            throw domainError('not_found', `block ${height} does not exist yet (head is ${service.head.height})`, {
              blockNumber: height,
            });
          return commit;
        },
      }),
      method({
        name: 'svc_getBlockByHash',
        summary: 'A block by its hash.',
        params: [param('hash', HashSchema)],
        result: BlockSchema,
        errors: ['invalid_params', 'not_found'],
        handler: async ([hash], { service }) => {
          const block = await service.getBlockByHash(hash);
          if (!block) throw domainError('not_found', `no block has hash ${hash}`, { hash });
          return block;
        },
      }),
      method({
        name: 'svc_getBalance',
        summary: 'OMC and OGT balances in base units, and OGT bonded per purpose, at the head or at a past block.',
        description:
          'A past blockNumber is answered within the history window (any block on an archive node); older ones answer `pruned`.',
        params: [param('address', AddressSchema), optionalParam('blockNumber', BlockTagSchema)],
        result: BalanceSchema,
        errors: ['invalid_address', 'invalid_params', 'not_found', 'pruned'],
        handler: ([rawAddress, tag], { service }) => {
          const address = normalizeAddress(rawAddress);
          const height = service.heightOf(tag ?? 'latest');
          const balance = (raw: Uint8Array | undefined) => {
            const { omc, ogt, bonded } = readBalances(raw);
            return { address, blockNumber: height, omc, ogt, bonded };
          };
          // The head's state is in memory: answer without a promise.
          if (height === service.head.height) return balance(service.state.get(accountKey(address)));
          return service.stateAt(height)(accountKey(address)).then(balance);
        },
      }),
      method({
        name: 'svc_getNonce',
        summary: 'The nonce the next transaction of this address should carry (mined and pending counted).',
        params: [param('address', AddressSchema)],
        result: Type.Integer({ minimum: 0 }),
        errors: ['invalid_address'],
        handler: ([address], { service }) => service.mempool.nextNonce(normalizeAddress(address)),
      }),
      method({
        name: 'svc_sendRawTransaction',
        summary: 'Submits a signed transaction; returns its hash once the mempool has admitted it.',
        params: [param('rawTransaction', RawTransactionSchema)],
        result: HashSchema,
        errors: [
          'invalid_params',
          'invalid_transaction',
          'invalid_signature',
          'wrong_chain_id',
          'nonce_too_low',
          'nonce_gap',
          'nonce_conflict',
          'already_known',
          'insufficient_funds',
          'mempool_full',
        ],
        handler: async ([raw], { service }) => {
          // An array of its own, not a view into Buffer's shared pool: the mempool keeps it, and sending
          // it to the decoding worker would copy the whole pool chunk.
          return (await submitFromClient(service, service, fromHex(raw))).hash;
        },
      }),
      method({
        name: 'svc_getTransaction',
        summary: 'A transaction by hash, pending or mined.',
        params: [param('hash', HashSchema)],
        result: TransactionSchema,
        errors: ['invalid_params', 'not_found'],
        handler: async ([hash], { service }) => {
          const found = await service.getTransaction(hash.toLowerCase());
          if (!found) throw domainError('not_found', `no pending or mined transaction has hash ${hash}`, { hash });
          return transactionView(found, service.kinds);
        },
      }),
      method({
        name: 'svc_listTransactions',
        summary:
          "An account's mined transactions, newest first: those it signed and those whose payload names it (a transfer's recipient, a faucet grant's address); pages of `limit` (default 25, at most 100) with a cursor.",
        description:
          'The index starts at `indexedFrom`: 0 on a chain this version made; a data dir from an earlier version indexes the blocks it commits from the upgrade on.',
        params: [param('filter', AccountTransactionsFilter)],
        result: Type.Object(
          {
            transactions: Type.Array(TransactionSchema),
            cursor: Type.Union([Type.String(), Type.Null()], {
              description: 'pass it to get the next page; null at the end',
            }),
            indexedFrom: Type.Integer({
              minimum: 0,
              description: 'the first block whose transactions this node has indexed by account',
            }),
          },
          { additionalProperties: false },
        ),
        errors: ['invalid_address', 'invalid_params'],
        handler: async ([filter], { service }) => {
          const before = filter.cursor === undefined ? undefined : parseCursor(filter.cursor);
          const page = await service.accountTransactions(normalizeAddress(filter.address), filter.limit ?? 25, before);
          const transactions = [];
          for (const entry of page.entries) {
            const [found, receipt] = await Promise.all([
              service.getTransaction(entry.hash),
              service.getReceipt(entry.hash),
            ]);
            if (found)
              transactions.push({
                ...transactionView(found, service.kinds),
                ...(receipt ? { outcome: receipt.status } : {}),
              });
          }
          return {
            transactions,
            cursor: page.next ? `${page.next.height}:${page.next.index}` : null,
            indexedFrom: service.accountIndexFrom,
          };
        },
      }),
      method({
        name: 'svc_getTransactionReceipt',
        summary: "A mined transaction's receipt: success, or failed with the error.",
        params: [param('hash', HashSchema)],
        result: ReceiptSchema,
        errors: ['invalid_params', 'not_found', 'pruned'],
        handler: async ([hash], { service }) => {
          const receipt = await service.receiptOrPruned(hash.toLowerCase());
          if (receipt === 'pruned') {
            const oldest = service.state.oldestAvailable(service.head.height);
            throw domainError(
              'pruned',
              `the receipt of ${hash} is in a block older than this node's history window (oldest: ${oldest}); ask an archive node`,
              { oldest },
            );
          }
          if (receipt) return receipt;
          const pending = service.mempool.has(hash.toLowerCase());
          throw domainError(
            'not_found',
            pending
              ? `transaction ${hash} is pending: no receipt until a block includes it`
              : `no mined transaction has hash ${hash}`,
            { hash, pending },
          );
        },
      }),
      method({
        name: 'svc_chainInfo',
        summary: 'Network, chain id, genesis hash, validator, head, and history settings.',
        params: [],
        result: ChainInfoSchema,
        handler: (_params, { service }) => ({
          network: service.genesis.network,
          chainId: service.genesis.chainId,
          rulesVersion: service.rulesVersionAt(service.head.height + 1),
          rulesSchedule: service.rulesSchedule.entries(),
          knownRulesVersions: RULES_VERSIONS.map((v) => v.version),
          genesisHash: service.genesisHash,
          validator: service.genesis.validator,
          head: { height: service.head.height, hash: service.head.hash, timestamp: service.head.timestamp },
          archive: service.isArchive,
          historyBlocks: settings.historyBlocks,
          oldestStateBlock: service.state.oldestAvailable(service.head.height),
          pendingTransactions: service.mempool.size,
        }),
      }),
    ],
  });
}

const AccountTransactionsFilter = Type.Object(
  {
    address: AddressSchema,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    cursor: Type.Optional(
      Type.String({ pattern: '^[0-9]{1,15}:[0-9]{1,9}$', description: 'the cursor of the previous page' }),
    ),
  },
  { additionalProperties: false },
);

/** `height:index` of the last transaction of the previous page. */
function parseCursor(cursor: string): { height: number; index: number } {
  const [height, index] = cursor.split(':').map(Number) as [number, number];
  return { height, index };
}

/** A transaction as svc_getTransaction shows it: pending, or mined at a height and index. */
/** A transaction as the `svc_` methods answer it: its payload as its kind has it read (TxKind.view). */
function transactionView(
  found: { tx: SignedTransaction; height?: number; index?: number },
  kinds: TxKindRegistry,
): Static<typeof TransactionSchema> {
  const { tx } = found;
  const payload = jsonPayload(tx.payload);
  return {
    hash: tx.hash,
    from: tx.from,
    chainId: tx.chainId,
    kind: tx.kind,
    nonce: tx.nonce,
    publicKey: tx.publicKey,
    signature: tx.signature,
    payload: kinds.get(tx.kind)?.spec.view?.(payload) ?? payload,
    status: found.height === undefined ? 'pending' : 'mined',
    blockNumber: found.height ?? null,
    index: found.index ?? null,
  };
}

/** Payload values as JSON: byte strings become 0x hex. */
function jsonPayload(value: unknown): Record<string, unknown> {
  const convert = (v: unknown): unknown => {
    if (v instanceof Uint8Array) return `0x${Buffer.from(v).toString('hex')}` as Hex;
    if (Array.isArray(v)) return v.map(convert);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, convert(x)]));
    return v;
  };
  return convert(value) as Record<string, unknown>;
}

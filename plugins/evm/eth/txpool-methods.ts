import Type from 'typebox';
import type { MethodFactory, RpcMethod } from '../../../kernel/plugin.js';
import type { SignedTransaction } from '../../../sdk/transaction.js';
import { ETHEREUM_KIND } from '../../../chain/ethereum-envelope.js';
import { DEV_IMPERSONATED_KIND } from '../dev-edits.js';
import type { EvmPlugin } from '../plugin-service.js';
import { qty } from './quantity.js';

type TxView = Record<string, unknown> & { from: string; nonce: string; to: string | null };
type BySender<T> = Record<string, Record<string, T>>;

const Pool = (what: string) =>
  Type.Object(
    {
      pending: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown())),
      queued: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown())),
    },
    { description: `${what}: by sender (lowercase, as Anvil), then by nonce (decimal)` },
  );

/** The mempool's Ethereum transactions (impersonated sends too) as `eth_getTransactionByHash` shows them. */
async function pooled(service: EvmPlugin): Promise<{ pending: TxView[]; queued: TxView[] }> {
  const { pending, queued } = service.rules.chain.pendingContent();
  const views = (txs: SignedTransaction[]) =>
    Promise.all(
      txs
        .filter((tx) => tx.kind === ETHEREUM_KIND || tx.kind === DEV_IMPERSONATED_KIND)
        .map(async (tx) => (await service.eth.transactionByHash(tx.hash)) as TxView | null),
    ).then((found) => found.filter((view): view is TxView => view !== null));
  return { pending: await views(pending), queued: await views(queued) };
}

function bySender<T>(views: TxView[], shape: (view: TxView) => T): BySender<T> {
  const out: BySender<T> = {};
  for (const view of views) {
    const sender = view.from.toLowerCase();
    (out[sender] ??= {})[BigInt(view.nonce).toString()] = shape(view);
  }
  return out;
}

/** geth's one-line summary of a pooled transaction. */
const summary = (view: TxView): string =>
  `${view.to ? view.to.toLowerCase() : 'contract creation'}: ${BigInt(view.value as string)} wei + ${BigInt(view.gas as string)} gas × ${BigInt(view.gasPrice as string)} wei`;

/**
 * geth's `txpool_` namespace (Anvil serves it too): what waits in the mempool, counted, whole, or as a
 * line each. Ethereum transactions only, as `eth_` views show them (native ones are `svc_` business).
 */
export function txpoolMethods(method: MethodFactory<EvmPlugin>): RpcMethod[] {
  return [
    method({
      name: 'txpool_status',
      summary: 'How many Ethereum transactions wait: runnable now (pending) and behind a nonce gap (queued).',
      params: [],
      result: Type.Object({ pending: Type.String(), queued: Type.String() }),
      handler: async (_params, { service }) => {
        const { pending, queued } = await pooled(service);
        return { pending: qty(pending.length), queued: qty(queued.length) };
      },
    }),
    method({
      name: 'txpool_content',
      summary: 'The waiting Ethereum transactions, whole, by sender and nonce.',
      params: [],
      result: Pool('the transactions'),
      handler: async (_params, { service }) => {
        const { pending, queued } = await pooled(service);
        return { pending: bySender(pending, (view) => view), queued: bySender(queued, (view) => view) };
      },
    }),
    method({
      name: 'txpool_inspect',
      summary:
        'The waiting Ethereum transactions as a line each ("to: value wei + gas gas × price wei"), by sender and nonce.',
      params: [],
      result: Pool('one line each'),
      handler: async (_params, { service }) => {
        const { pending, queued } = await pooled(service);
        return { pending: bySender(pending, summary), queued: bySender(queued, summary) };
      },
    }),
  ];
}

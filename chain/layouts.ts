import type { NamespaceSpec } from '../kernel/plugin.js';
import type { Namespace } from '../kernel/storage/namespace.js';

/**
 * The chain's storage layouts, each declared once: the chain plugin claims them, the block store and
 * the world state read and write them, `svc-node prune` opens them, `svc-node plugins` lists them.
 */
export const CHAIN_LAYOUTS = {
  blocks: { name: 'chain.blocks', description: 'u64 height -> CBOR block' },
  blockIndex: { name: 'chain.block-index', description: '32-byte block hash -> u64 height' },
  meta: { name: 'chain.meta', description: '"head" -> u64 height of the head block; "archive" -> flag of a data dir that has been an archive' },
  transactions: { name: 'chain.transactions', description: '32-byte tx hash -> CBOR [raw tx, height, index]' },
  receipts: { name: 'chain.receipts', description: '32-byte tx hash -> CBOR receipt' },
  stateEntries: { name: 'state.entries', description: 'utf8 state key -> u64 height of last change ‖ value' },
  stateHistory: { name: 'state.history', description: 'utf8 state key ‖ 0x00 ‖ u64 height -> value at that height (empty = absent)' },
  statePrunable: { name: 'state.prunable', description: 'u64 height ‖ utf8 key ‖ 0x00 ‖ u64 old height -> empty: history entry superseded at height' },
} as const satisfies Record<string, NamespaceSpec>;

export type ChainLayout = keyof typeof CHAIN_LAYOUTS;

/** Every chain namespace, opened by its declared name (through a plugin context, or a store claim). */
export function openChainLayouts(open: (name: string) => Namespace): { readonly [K in ChainLayout]: Namespace } {
  const out = {} as Record<ChainLayout, Namespace>;
  for (const [key, layout] of Object.entries(CHAIN_LAYOUTS) as [ChainLayout, NamespaceSpec][]) out[key] = open(layout.name);
  return out;
}

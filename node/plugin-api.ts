// `svc-node/plugin`: everything a plugin author needs, from the same copies the node uses — the
// kernel's plugin contract, and what the chain and the network add to it (transaction kinds,
// end-of-block steps, genesis entries, their events; precompiles).
export * from '../kernel/plugin.js';
export * from '../chain/contract.js';
export type {} from '../p2p/plugin.js';
// Precompiles the EVM runs for a plugin (its `precompiles` hook), and how one refuses a call.
export {
  PrecompileRevert,
  requirePayingCall,
  type PrecompileCall,
  type PrecompileOutcome,
  type PrecompileSpec,
  type PrecompileFunction,
  type ContractCallback,
  type CallbackResult,
} from '../plugins/evm/precompiles.js';
// The deterministic CBOR the chain hashes and stores: for consensus state values.
export { encode, decode } from '../sdk/encoding.js';
// Storage layouts declared once with typed codecs: `namespaces: [LAYOUT]`, then `ctx.table(LAYOUT)`.
export { defineLayout, Table } from '../kernel/storage/layout.js';
export { cbor, hash32, json, raw, u64, utf8Text } from '../kernel/storage/codec.js';

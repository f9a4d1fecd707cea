import { createWriteStream, existsSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { toHex } from '../../sdk/bytes.js';
import { encode } from '../../sdk/encoding.js';
import type { AnyPlugin } from '../../kernel/plugin.js';
import { lockDataDir } from '../../kernel/storage/data-dir-lock.js';
import { openStore } from '../../kernel/storage/open.js';
import type { ExportPoint } from '../contract.js';
import { BlockStore } from '../block-store.js';
import { openChainLayouts, type ChainTables } from '../layouts.js';
import { RULES_SCHEDULE_KEY, RulesSchedule } from '../rules-schedule.js';
import { RULES_VERSION_KEY } from '../rules-version.js';
import { StateCommitment } from '../state/state-root.js';
import { ExportError } from './export-blocks.js';

export interface ExportedState {
  readonly chainId: string;
  readonly genesisHash: string;
  readonly height: number;
  readonly hash: string;
  readonly stateRoot: string;
  readonly timestamp: number;
  /** The genesis validator of the exported network (its genesis block's proposer). */
  readonly validator: string;
  readonly validatorKey: string;
  /** The rules version the exported network would run its next block under. */
  readonly rulesVersion: number;
  /** Every key of the state after block `height`, as the chain holds it. */
  readonly state: Map<string, Uint8Array>;
}

/** The state after block `height`: the committed entries at the head, else each key's newest version at or before it. */
async function stateAt(ns: ChainTables, height: number, head: number): Promise<Map<string, Uint8Array>> {
  const state = new Map<string, Uint8Array>();
  if (height === head) {
    for await (const [key, { value }] of ns.stateEntries.entries()) state.set(key, value);
    return state;
  }
  // History keys are `key ‖ 0x00 ‖ u64 height`: a key's versions come one after another, oldest first.
  for await (const [{ key, height: at }, value] of ns.stateHistory.entries()) {
    if (at > height) continue;
    if (value.length > 0) state.set(key, value);
    else state.delete(key);
  }
  // A value unchanged since then is that height's (one restored from a snapshot has no version yet).
  for await (const [key, { height: at, value }] of ns.stateEntries.entries()) if (at <= height) state.set(key, value);
  return state;
}

/**
 * Reads the whole state of a stopped node's data dir after block `height` (default the head), checks
 * it against that block's state root — a state below the node's history window is refused, never half
 * given — and hands it over with what a genesis of it needs.
 */
export async function readExportedState(dataDir: string, height?: number): Promise<ExportedState> {
  if (!existsSync(join(dataDir, 'db', 'CURRENT'))) throw new ExportError(`--data-dir ${dataDir}: holds no chain`);
  const lock = lockDataDir(dataDir);
  const store = await openStore('rocksdb', dataDir);
  try {
    const ns = openChainLayouts((name) => store.claim(name, 'export-state'));
    const blocks = new BlockStore(ns);
    const head = await blocks.headHeight();
    let genesis: Awaited<ReturnType<BlockStore['byHeight']>>;
    for await (const [, block] of ns.blocks.entries({ limit: 1 })) genesis = block;
    if (head === undefined || !genesis) throw new ExportError(`--data-dir ${dataDir}: holds no chain`);
    const at = height ?? head;
    if (at < genesis.height || at > head)
      throw new ExportError(`--height ${at}: the chain has blocks ${genesis.height} to ${head}`);
    const block = (await blocks.byHeight(at))!;
    const state = await stateAt(ns, at, head);
    const commitment = new StateCommitment();
    for (const [key, value] of state) commitment.set(key, value);
    if (toHex(commitment.root()) !== block.stateRoot)
      throw new ExportError(
        `--height ${at}: this data dir no longer keeps the state of block ${at} whole (older than its history window): export at a later height, or from an archive node`,
      );
    return {
      chainId: block.chainId,
      genesisHash: genesis.hash,
      height: at,
      hash: block.hash,
      stateRoot: block.stateRoot,
      timestamp: block.timestamp,
      validator: genesis.proposer,
      validatorKey: genesis.proposerKey,
      rulesVersion: RulesSchedule.of(state).versionAt(at + 1),
      state,
    };
  } finally {
    await store.close();
    lock.release();
  }
}

/**
 * The exported state as a new network's genesis state: the rules version of the next block becomes
 * the genesis version (the schedule is the old network's, and goes), and each plugin keeps, drops or
 * rewrites its own keys (`exportGenesis`).
 */
export function genesisStateOf(
  exported: ExportedState,
  plugins: readonly AnyPlugin[],
  newValidators: boolean,
  rulesVersion = exported.rulesVersion,
): Map<string, Uint8Array> {
  const state = new Map(exported.state);
  state.delete(RULES_SCHEDULE_KEY);
  state.set(RULES_VERSION_KEY, encode(rulesVersion));
  const from: ExportPoint = { height: exported.height, newValidators };
  for (const plugin of plugins) plugin.exportGenesis?.(state, from);
  return state;
}

/** Writes a genesis file of the state, keys in order, as `svc-node start --genesis` reads it. */
export async function writeStateGenesis(
  out: string,
  head: Record<string, unknown>,
  state: ReadonlyMap<string, Uint8Array>,
): Promise<void> {
  const file = createWriteStream(out, { flags: 'wx' });
  const failed = once(file, 'error').then(([error]) => {
    throw error;
  });
  const put = async (text: string): Promise<void> => {
    if (!file.write(text)) await Promise.race([once(file, 'drain'), failed]);
  };
  const fields = Object.entries(head).map(([key, value]) => `  ${JSON.stringify(key)}: ${JSON.stringify(value)},\n`);
  await put(`{\n${fields.join('')}  "state": {`);
  const keys = [...state.keys()].sort();
  for (const [i, key] of keys.entries())
    await put(`${i === 0 ? '\n' : ',\n'}    ${JSON.stringify(key)}: "${toHex(state.get(key)!)}"`);
  await put('\n  }\n}\n');
  file.end();
  await Promise.race([once(file, 'finish'), failed]);
}

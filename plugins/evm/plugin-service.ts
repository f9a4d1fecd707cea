import type { SyncStatus } from '../../p2p/sync-status.js';
import type { EvmService } from './service.js';
import type { EthApi } from './eth/api.js';
import type { PollFilters } from './eth/filters.js';
import type { TraceApi } from './eth/trace-api.js';
import type { Table } from '../../kernel/storage/layout.js';
import type { RegisteredAbiItem } from './abi-registry.js';

/** What the evm plugin's hooks and methods see: the chain rules' service, the Ethereum API over it, its tracers, its poll filters, sync. */
export interface EvmPlugin {
  readonly rules: EvmService;
  readonly eth: EthApi;
  readonly filters: PollFilters;
  readonly trace: TraceApi;
  readonly sync: SyncStatus;
  /** The head when the node started: where `eth_syncing` says a sync began. */
  readonly syncStart: number;
  /** Whether the node runs in dev mode (--dev): it admits dev-mode state edits. */
  readonly dev: boolean;
  /** Contract ABIs this node keeps for its explorer and tools (svc_setContractAbi), by svc1 address. */
  readonly abis: Table<string, RegisteredAbiItem[]>;
  /** Whether dev mode prints contracts' console.log lines (on at start; anvil_setLoggingEnabled). */
  setConsoleLogging(on: boolean): void;
}

import { genesisStateOf, readExportedState, writeStateGenesis } from '../chain/backup/export-state.js';
import { CHAIN_RULE_PLUGINS } from './genesis.js';

export interface ExportStateResult {
  readonly height: number;
  readonly keys: number;
  readonly rulesVersion: number;
}

/**
 * `svc-node export-state`: a genesis file holding a stopped node's whole state after block `height`
 * (default its head) — every account, contract, stake, provider, deal and job — that `svc-node start
 * --genesis` serves as a network's first block, at that height, with the same validators; `svc-node
 * init --from-state` makes a network with validators of its own of it.
 */
export async function exportState(
  dataDir: string,
  height: number | undefined,
  out: string,
): Promise<ExportStateResult> {
  const exported = await readExportedState(dataDir, height);
  const state = genesisStateOf(exported, CHAIN_RULE_PLUGINS, false);
  await writeStateGenesis(
    out,
    {
      chainId: exported.chainId,
      rulesVersion: exported.rulesVersion,
      initialHeight: exported.height,
      timestamp: exported.timestamp,
      validatorKey: exported.validatorKey,
      validator: exported.validator,
      exportedFrom: {
        chainId: exported.chainId,
        genesisHash: exported.genesisHash,
        height: exported.height,
        hash: exported.hash,
        stateRoot: exported.stateRoot,
      },
    },
    state,
  );
  return { height: exported.height, keys: state.size, rulesVersion: exported.rulesVersion };
}

import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { devnetBaseGenesis } from '../../chain/genesis.js';
import { formatAmountShort } from '../../sdk/amount.js';
import { tempDir } from './temp-dirs.js';

let file: string | undefined;

/**
 * A genesis file of the devnet without the providers its built-in genesis registers (its validator
 * as compute and storage provider): for tests of registering providers, assigning jobs among them and
 * a job no provider takes. Same chain id, accounts and validator key as the built-in devnet.
 */
export function plainDevnetGenesisFile(): string {
  // Made once per test process; again if a test's clean-up removed the temp dirs it sits in.
  if (file && existsSync(file)) return file;
  const base = devnetBaseGenesis();
  const spec = {
    chainId: base.chainId,
    rulesVersion: base.rulesVersion,
    timestamp: base.timestamp,
    validatorKey: base.validatorKey,
    validator: base.validator,
    accounts: base.accounts.map((a) => ({
      address: a.address,
      omc: formatAmountShort(a.omc),
      ogt: formatAmountShort(a.ogt),
    })),
  };
  file = join(tempDir('svc-plain-devnet-'), 'genesis.json');
  writeFileSync(file, `${JSON.stringify(spec, null, 2)}\n`);
  return file;
}

/** Config for a test node on the plain devnet (see `plainDevnetGenesisFile`). */
export const plainDevnet = (): { genesis: string } => ({ genesis: plainDevnetGenesisFile() });

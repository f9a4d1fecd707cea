import type { ErrorDeclarations } from '../../sdk/errors.js';

/** Dev mode's refusals. */
export const DEV_ERRORS = {
  dev_mode_off: {
    code: -32027,
    description: 'a dev-mode method (evm_mine, evm_increaseTime, …) on a node not started with --dev',
  },
  peers_connected: {
    code: -32028,
    description: 'evm_revert on a dev node with peers connected: they hold the blocks a revert would undo',
  },
} as const satisfies ErrorDeclarations;

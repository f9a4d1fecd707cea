import Type from 'typebox';
import { DEFAULT_CALL_BUDGET_MS } from './runner.js';

/** The EVM plugin's settings (under "evm" in a config file). */
export const EvmConfigSchema = Type.Object(
  {
    callTimeoutMs: Type.Integer({
      minimum: 10,
      maximum: 600_000,
      default: DEFAULT_CALL_BUDGET_MS,
      description:
        'how long one eth_call, eth_estimateGas or svc_call may run (ms of wall-clock time) before it fails with "execution aborted"; geth\'s default',
    }),
    dev: Type.Boolean({
      default: false,
      description: 'dev mode (--dev, set from the node config): admits dev-mode state edits',
    }),
  },
  { additionalProperties: false },
);

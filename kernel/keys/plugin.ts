import { definePlugin } from '../plugin.js';
import type { OperatorKeys } from './node-keys.js';

declare module '../plugin.js' {
  interface SvcCapabilities {
    /** The operator keys this node holds (its own and imported ones), by address. */
    keys: OperatorKeys;
  }
}

/**
 * The data dir's operator keys as a capability, for plugins that sign on an operator's behalf
 * (registrations, bonds). Always loaded; the kernel reads the keys at start, before any init.
 */
export function keystorePlugin(operatorKeys: () => OperatorKeys) {
  return definePlugin({
    name: 'keystore',
    version: '1.0.0',
    description: "the operator keys of this node's data dir: its own (keys/operator.json) and imported ones (keys/operators/)",
    provides: ['keys'],
    init: () => operatorKeys(),
  });
}

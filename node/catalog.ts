import type { PluginCatalog } from './presets.js';

/** The chain-rule plugins (transaction kinds, end-of-block steps, genesis entries): every node loads them, in this order. */
export const CONSENSUS_PLUGINS = ['oon', 'omp', 'staking', 'evm', 'upgrade'] as const;

/** First-party plugins, loaded on demand, and what each role enables. */
export const catalog: PluginCatalog = {
  plugins: {
    validator: async () => (await import('../plugins/validator/index.js')).default,
    metrics: async () => (await import('../plugins/metrics/index.js')).default,
    faucet: async () => (await import('../plugins/faucet/index.js')).default,
    auth: async () => (await import('../plugins/auth/index.js')).default,
    'rate-limit': async () => (await import('../plugins/rate-limit/index.js')).default,
    archive: async () => (await import('../plugins/archive/index.js')).default,
    oon: async () => (await import('../plugins/oon/index.js')).default,
    omp: async () => (await import('../plugins/omp/index.js')).default,
    staking: async () => (await import('../plugins/staking/index.js')).default,
    evm: async () => (await import('../plugins/evm/index.js')).default,
    upgrade: async () => (await import('../plugins/upgrade/index.js')).default,
    compute: async () => (await import('../plugins/compute/index.js')).default,
    'omp-storage': async () => (await import('../plugins/omp-storage/index.js')).default,
    explorer: async () => (await import('../plugins/explorer/index.js')).default,
    dev: async () => (await import('../plugins/dev/index.js')).default,
    snapshots: async () => (await import('../plugins/snapshots/index.js')).default,
  },
  networks: {
    devnet: ['faucet'],
  },
  // Chain rules (transaction kinds, end-of-block steps): every node must execute blocks the same way.
  consensus: CONSENSUS_PLUGINS,
  // Provider capabilities answer on every node; registering switches one on (a config may switch it off).
  capabilities: ['compute', 'omp-storage'],
  // Answers on every node: dev mode's methods, or dev_mode_off; state snapshots for peers that state-sync.
  everyNode: ['dev', 'snapshots'],
  roles: {
    validator: ['validator', 'metrics'],
    compute: ['metrics'],
    full: ['metrics'],
  },
};

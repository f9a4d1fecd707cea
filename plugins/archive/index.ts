import { definePlugin } from '../../kernel/plugin.js';

/**
 * The archive capability (`--receipt-archive true`): the chain keeps every receipt and every
 * historical state value, so `svc_getBalance [address, pastBlock]` and old receipts are answered at
 * any height. Without it a node keeps `--history-blocks` blocks of them and answers older queries
 * with `pruned`. A data dir that has been an archive stays one until `svc-node prune`.
 */
export default definePlugin({
  name: 'archive',
  version: '1.0.0',
  description: 'archive capability: keep every receipt and all historical state (--receipt-archive true)',
  requires: ['history-keeping'],
  provides: ['archive'],
  init(ctx) {
    ctx.use('history-keeping').enableArchive();
    ctx.log.info('archive: keeping every receipt and all historical state');
    return { archive: true };
  },
  health: () => ({ archive: true }),
});

// The end-to-end runner's plugin, loaded into every node of its testnet by file path (never into a
// node of anyone else's): it lets the runner cut the network between nodes through the node's own
// peer deny list, the way an operator would refuse a peer. Nothing else in the node changes.
import { definePlugin, param, Type } from '../../node/plugin-api.js';

const PEER_ID = Type.String({ pattern: '^[1-9A-HJ-NP-Za-km-z]{32,128}$', description: 'a libp2p peer id' });

export default definePlugin({
  name: 'e2e-cut',
  version: '1.0.0',
  kernelApi: 1,
  description: "the e2e runner's network cuts: replaces the peers this node refuses (e2e_denyPeers)",
  requires: ['p2p'],
  init: (ctx) => ctx.use('p2p'),
  rpc: (method) => [
    method({
      name: 'e2e_denyPeers',
      summary:
        'Replaces the peers this node refuses, both ways, until the next call ([] lifts it); answers the list now in force.',
      params: [param('peers', Type.Array(PEER_ID, { maxItems: 64 }))],
      result: Type.Array(PEER_ID),
      handler: ([peers], { service }) => {
        service.denyPeers(peers);
        return service.deniedPeers;
      },
    }),
  ],
});

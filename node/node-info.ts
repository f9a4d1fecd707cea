import Type, { type Static } from 'typebox';
import type { RpcMethod } from '../kernel/plugin.js';
import { canonicalAddressPattern } from '../sdk/address.js';

export const NodeInfoSchema = Type.Object(
  {
    version: Type.String(),
    network: Type.String(),
    chainId: Type.String(),
    rulesVersion: Type.Integer({
      minimum: 1,
      description: "the chain-rules version the next block runs under (the network's schedule)",
    }),
    knownRulesVersions: Type.Array(Type.Integer({ minimum: 1 }), {
      description: "the chain-rules versions this node's release implements",
    }),
    role: Type.String(),
    plugins: Type.Array(Type.Object({ name: Type.String(), version: Type.String() }, { additionalProperties: false })),
    capabilities: Type.Array(Type.String()),
    peerId: Type.String({ description: 'libp2p peer id, stable for the data dir' }),
    listenAddresses: Type.Array(Type.String(), {
      description: 'libp2p multiaddrs other nodes can dial (with /p2p/<peer id>)',
    }),
    operator: Type.String({ pattern: canonicalAddressPattern, description: "this node's operator account" }),
    synced: Type.Boolean(),
  },
  { additionalProperties: false },
);

export type NodeInfo = Static<typeof NodeInfoSchema>;

/** `svc_nodeInfo`, a kernel method: what this node is and runs. */
export function nodeInfoMethod(describe: () => NodeInfo): RpcMethod {
  return {
    name: 'svc_nodeInfo',
    summary: 'This node: version, network, role, enabled plugins, capabilities, peer id, operator address, synced.',
    params: [],
    result: NodeInfoSchema,
    handler: () => describe(),
  };
}

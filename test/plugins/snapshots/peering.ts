import type { SnapshotStore } from '../../../chain/snapshots/store.js';
import type { P2pService } from '../../../p2p/service.js';
import type { TestNode } from '../../helpers/test-node.js';

/** A node's libp2p address, for another's bootstrap list. */
export const p2pOf = (node: TestNode): string => node.node.service<P2pService>('p2p').listenAddresses[0]!;

/** The p2p config of a node on a free port that dials `bootstrap`. */
export const peerOf = (bootstrap: readonly TestNode[]) => ({
  host: '127.0.0.1',
  port: 0,
  bootstrapPeers: bootstrap.map(p2pOf),
});

/** The snapshots a node keeps. */
export const snapshotStoreOf = (node: TestNode): SnapshotStore =>
  node.node.service<{ store: SnapshotStore }>('snapshots').store;

/** Whether a node's log has said `text`. */
export const said = (node: TestNode, text: string): boolean =>
  node.logs.lines.some((line) => String(line.msg).includes(text));

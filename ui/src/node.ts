import { SvcClient, SvcWsClient } from '../../sdk/index.js';

/** The node that serves this page: JSON-RPC over HTTP on its origin, and WebSocket on the same port. */
export const http = new SvcClient({ url: location.origin });
export const ws = new SvcWsClient({ url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/` });

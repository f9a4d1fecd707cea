import { rmSync } from 'node:fs';
import { catalog } from '../../node/catalog.js';
import { mergeConfig, type RawConfig } from '../../kernel/config/load.js';
import { resolveConfig } from '../../node/config.js';
import { SvcNode } from '../../node/node.js';
import type { AnyPlugin } from '../../kernel/plugin.js';
import type { SyncStatus } from '../../p2p/sync-status.js';
import { captureLog, type CapturedLog } from './log-capture.js';
import { tempDir } from './temp-dirs.js';

export interface TestNode {
  readonly node: SvcNode;
  readonly url: string;
  readonly wsUrl: string;
  readonly dataDir: string;
  readonly logs: CapturedLog;
  stop(): Promise<void>;
}

export { tempDir } from './temp-dirs.js';

/** Whether a test node is synced, as its readiness and `svc_syncing` see it. */
export const syncStatus = (node: TestNode): SyncStatus => node.node.service<SyncStatus>('sync-status');

/** A real node on 127.0.0.1:0 with a temp data dir; `stop` also removes the dir unless it was given. */
export async function startTestNode(
  config: RawConfig = {},
  plugins: AnyPlugin[] = [],
  options: { baseDir?: string; logLevel?: 'debug' | 'info' } = {},
): Promise<TestNode> {
  const ownDir = config.dataDir === undefined;
  const dataDir = (config.dataDir as string | undefined) ?? tempDir();
  const raw = mergeConfig(
    {
      role: 'validator',
      storage: 'rocksdb',
      dataDir,
      rpc: { bind: '127.0.0.1:0', validateResults: true },
      p2p: { host: '127.0.0.1', port: 0 },
      validator: { blockTime: 100 },
    },
    config,
  );
  const logs = captureLog(options.logLevel);
  const node = await SvcNode.create({
    config: resolveConfig(raw),
    catalog,
    log: logs.log,
    plugins,
    baseDir: options.baseDir,
  });
  await node.start();
  const url = node.rpcUrl;
  return {
    node,
    url,
    wsUrl: url.replace(/^http/, 'ws'),
    dataDir,
    logs,
    async stop() {
      await node.stop();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function rpc<T = unknown>(
  url: string,
  method: string,
  params?: unknown[],
): Promise<{
  status: number;
  body: { result?: T; error?: { code: number; message: string; data?: Record<string, unknown> } };
}> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }),
  });
  return { status: response.status, body: (await response.json()) as never };
}

export async function postRaw(
  url: string,
  body: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** Resolves when `predicate` holds, polling; fails after `timeoutMs`. For conditions with no event to wait on. */
export async function waitFor<T>(
  probe: () => Promise<T> | T,
  predicate: (value: T) => boolean,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (predicate(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

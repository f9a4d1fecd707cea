import Type from 'typebox';
import type { RpcMethod } from '../plugin.js';
import type { MethodRegistry } from './registry.js';

export interface OpenRpcDocument {
  openrpc: string;
  info: { title: string; version: string; description: string };
  methods: {
    name: string;
    summary: string;
    description?: string;
    paramStructure: 'by-position';
    params: { name: string; required: boolean; description?: string; schema: unknown }[];
    result: { name: string; schema: unknown };
    errors: { code: number; message: string; data?: unknown }[];
    'x-plugin': string;
  }[];
}

/** The OpenRPC document of every registered method, straight from the registry's schemas. */
export function buildOpenRpc(registry: MethodRegistry, version: string): OpenRpcDocument {
  return {
    openrpc: '1.3.2',
    info: {
      title: 'svc-node JSON-RPC',
      version,
      description: 'JSON-RPC 2.0 over HTTP POST / and WebSocket on the same port; params are positional.',
    },
    methods: registry.list().map(({ spec, owner }) => ({
      name: spec.name,
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      paramStructure: 'by-position' as const,
      params: spec.params.map((p) => ({
        name: p.name,
        required: !p.optional,
        ...(p.description ? { description: p.description } : {}),
        schema: p.schema,
      })),
      result: { name: `${spec.name}Result`, schema: spec.result },
      errors: (spec.errors ?? []).map((name) => {
        // Every listed error is declared: the registry refuses a method that lists another.
        const declared = registry.errors.get(name)!;
        return { code: declared.code, message: name, data: { reason: declared.description } };
      }),
      'x-plugin': owner,
    })),
  };
}

/** `rpc.discover`, the kernel's own method; the document is built once, after every plugin registered. */
export function discoverMethod(registry: MethodRegistry, version: string): RpcMethod {
  let document: OpenRpcDocument | undefined;
  return {
    name: 'rpc.discover',
    summary: 'The OpenRPC document of every method this node serves.',
    params: [],
    result: Type.Object({
      openrpc: Type.String(),
      info: Type.Object({}),
      methods: Type.Array(Type.Object({ name: Type.String() })),
    }),
    handler: () => (document ??= buildOpenRpc(registry, version)),
  };
}

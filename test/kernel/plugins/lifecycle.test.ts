import { afterEach, describe, expect, it } from 'vitest';
import Type from 'typebox';
import { catalog } from '../../../node/catalog.js';
import { resolveConfig } from '../../../node/config.js';
import { SvcNode } from '../../../node/node.js';
import { definePlugin, param, type AnyPlugin } from '../../../kernel/plugin.js';
import { captureLog } from '../../helpers/log-capture.js';
import { rpc, startTestNode, tempDir, waitFor, type TestNode } from '../../helpers/test-node.js';

let running: TestNode | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

function recorder(
  name: string,
  journal: string[],
  options: { requires?: string[]; failStart?: boolean } = {},
): AnyPlugin {
  return definePlugin({
    name,
    version: '1.0.0',
    description: name,
    requires: options.requires ?? [],
    init: () => {
      journal.push(`init ${name}`);
    },
    start: () => {
      journal.push(`start ${name}`);
      if (options.failStart) throw new Error(`${name} cannot start`);
    },
    stop: () => {
      journal.push(`stop ${name}`);
    },
  }) as AnyPlugin;
}

describe('plugin lifecycle', () => {
  it('inits and starts in dependency order and stops in reverse', async () => {
    const journal: string[] = [];
    running = await startTestNode({ storage: 'memory' }, [
      recorder('second', journal, { requires: ['first'] }),
      recorder('first', journal),
    ]);
    await running.stop();
    running = undefined;
    expect(journal).toEqual(['init first', 'init second', 'start first', 'start second', 'stop second', 'stop first']);
  });

  it('a failed start stops what already started, in reverse, and frees the data dir', async () => {
    const journal: string[] = [];
    const dataDir = tempDir();
    const plugins = [
      recorder('a', journal),
      recorder('b', journal, { requires: ['a'] }),
      recorder('c', journal, { requires: ['b'], failStart: true }),
    ];
    await expect(startTestNode({ storage: 'rocksdb', dataDir }, plugins)).rejects.toThrow('c cannot start');
    expect(journal).toEqual(['init a', 'init b', 'init c', 'start a', 'start b', 'start c', 'stop b', 'stop a']);
    running = await startTestNode({ storage: 'rocksdb', dataDir });
  });

  it('refuses two plugins registering the same method, naming both', async () => {
    const method = (owner: string) =>
      definePlugin({
        name: owner,
        version: '1.0.0',
        description: owner,
        rpc: (m) => [
          m({
            name: 'dup_method',
            summary: 'x',
            params: [param('x', Type.String())],
            result: Type.String(),
            handler: ([x]) => x,
          }),
        ],
      }) as AnyPlugin;
    await expect(startTestNode({ storage: 'memory' }, [method('one'), method('two')])).rejects.toThrow(
      'method "dup_method" of plugin "two" is already registered by plugin "one"',
    );
  });

  it('refuses two plugins claiming the same namespace, naming both', async () => {
    const claimer = (owner: string) =>
      definePlugin({
        name: owner,
        version: '1.0.0',
        description: owner,
        namespaces: [{ name: 'shared.state', description: 'x' }],
      }) as AnyPlugin;
    await expect(startTestNode({ storage: 'memory' }, [claimer('one'), claimer('two')])).rejects.toThrow(
      'namespace "shared.state" of plugin "two" is already claimed by plugin "one"',
    );
  });

  it('a plugin may only use capabilities it requires, and only its own namespaces', async () => {
    const sneaky = definePlugin({
      name: 'sneaky',
      version: '1.0.0',
      description: 'x',
      init: (ctx) => ctx.use('chain'),
    }) as AnyPlugin;
    await expect(startTestNode({ storage: 'memory' }, [sneaky])).rejects.toThrow(
      'plugin "sneaky" uses "chain" without listing it in "requires"',
    );
    const other = definePlugin({
      name: 'other',
      version: '1.0.0',
      description: 'x',
      init: (ctx) => ctx.namespace('chain.blocks'),
    }) as AnyPlugin;
    await expect(startTestNode({ storage: 'memory' }, [other])).rejects.toThrow(
      'plugin "other" did not declare namespace "chain.blocks"',
    );
  });

  it('contains an event handler that throws, logging it under its plugin', async () => {
    const faulty = definePlugin({
      name: 'faulty',
      version: '1.0.0',
      description: 'x',
      init: (ctx) => {
        ctx.events.on('chain:block', () => {
          throw new Error('handler broke');
        });
      },
    }) as AnyPlugin;
    running = await startTestNode({ storage: 'memory' }, [faulty]);
    const start = (await rpc<number>(running.url, 'svc_blockNumber')).body.result!;
    // Blocks keep coming although a handler of every block throws.
    await waitFor(
      async () => (await rpc<number>(running!.url, 'svc_blockNumber')).body.result!,
      (h) => h >= start + 2,
      10_000,
      'two more blocks',
    );
    expect(
      running.logs.lines.some(
        (l) => l.plugin === 'faulty' && l.event === 'chain:block' && String(l.msg).includes('failed'),
      ),
    ).toBe(true);
  });

  it('checks each plugin config slice, naming the key', async () => {
    const log = captureLog().log;
    const create = (raw: Record<string, unknown>) =>
      SvcNode.create({ config: resolveConfig({ storage: 'memory', ...raw }), catalog, log });
    await expect(create({ role: 'validator', validator: { blockTime: 5 } })).rejects.toThrow(
      'config key "validator.blockTime": must be >= 10',
    );
    await expect(create({ role: 'validator', validator: { blockTme: 5 } })).rejects.toThrow(
      'unknown config key "validator.blockTme"',
    );
    await expect(create({ nonsense: 1 })).rejects.toThrow('unknown config key "nonsense"');
  });
});

import { describe, expect, it } from 'vitest';
import { definePlugin, type AnyPlugin } from '../../../kernel/plugin.js';
import { orderPlugins } from '../../../kernel/plugins/order.js';
import { assertPluginDefinition } from '../../../kernel/plugins/validate.js';

const plugin = (name: string, requires: string[] = [], provides: string[] = []): AnyPlugin =>
  definePlugin({ name, version: '1.0.0', description: name, requires, provides }) as AnyPlugin;

const names = (plugins: AnyPlugin[]): string[] => plugins.map((p) => p.name);

describe('plugin ordering', () => {
  it('puts providers before the plugins that require them, keeping the given order otherwise', () => {
    const ordered = orderPlugins([
      plugin('metrics', ['chain']),
      plugin('c'),
      plugin('validator', ['chain', 'keys']),
      plugin('chain'),
      plugin('keystore', [], ['keys']),
    ]);
    expect(names(ordered)).toEqual(['chain', 'metrics', 'c', 'keystore', 'validator']);
  });

  it('refuses a dependency cycle, naming it', () => {
    expect(() => orderPlugins([plugin('a', ['b']), plugin('b', ['c']), plugin('c', ['a'])])).toThrow(
      'plugin dependency cycle: a -> b -> c -> a',
    );
  });

  it('refuses an unmet requirement, naming plugin and capability', () => {
    expect(() => orderPlugins([plugin('a', ['storage-x'])])).toThrow(
      'plugin "a" requires "storage-x", which no enabled plugin provides',
    );
  });

  it('refuses a plugin loaded twice and a capability provided twice', () => {
    expect(() => orderPlugins([plugin('a'), plugin('a')])).toThrow('plugin "a" is loaded twice');
    expect(() => orderPlugins([plugin('a', [], ['x']), plugin('b', [], ['x'])])).toThrow(
      'capability "x" is provided by both plugin "a" and plugin "b"',
    );
  });

  it('checks a loaded module is a plugin definition', () => {
    expect(() => assertPluginDefinition(undefined, 'plugin "./x.js"')).toThrow(/does not export a plugin/);
    expect(() => assertPluginDefinition({ name: 'Bad Name', version: '1', description: '' }, 'p')).toThrow(
      /"name" must match/,
    );
    expect(() => assertPluginDefinition({ name: 'ok', version: '', description: '' }, 'p')).toThrow(/"version"/);
    expect(() => assertPluginDefinition({ name: 'ok', version: '1', description: '', init: 5 }, 'p')).toThrow(
      /"init" must be a function/,
    );
  });
});

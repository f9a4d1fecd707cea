import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rpc, startTestNode, tempDir, type TestNode } from '../../helpers/test-node.js';

let running: TestNode | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

const example = resolve('examples/hello-plugin/index.js');

describe('third-party plugins', () => {
  it('a plugin named by file path in config adds a method and a namespace that persists', async () => {
    const dataDir = tempDir();
    running = await startTestNode({ dataDir, plugins: [example], hello: { greeting: 'hi' } });
    expect((await rpc(running.url, 'hello_greet', ['ada'])).body.result).toEqual({ message: 'hi, ada!', count: 1 });
    expect((await rpc(running.url, 'hello_greet', ['ada'])).body.result).toEqual({ message: 'hi, ada!', count: 2 });
    expect((await rpc(running.url, 'hello_greet', [''])).body.error).toMatchObject({
      code: -32602,
      message: 'invalid_params',
      data: { field: 'name' },
    });
    const discover = (await rpc<{ methods: { name: string; 'x-plugin': string }[] }>(running.url, 'rpc.discover')).body
      .result!;
    expect(discover.methods.find((m) => m.name === 'hello_greet')).toMatchObject({ 'x-plugin': 'hello' });
    await running.stop();
    running = await startTestNode({ dataDir, plugins: [example] });
    expect((await rpc(running.url, 'hello_greet', ['ada'])).body.result).toEqual({ message: 'hello, ada!', count: 3 });
  });

  it('a relative path resolves from the config file folder (baseDir)', async () => {
    running = await startTestNode({ storage: 'memory', plugins: ['./examples/hello-plugin/index.js'] }, [], {
      baseDir: process.cwd(),
    });
    expect((await rpc(running.url, 'hello_greet', ['bob'])).body.result).toMatchObject({ count: 1 });
  });

  it('a module that is not a plugin, or cannot be found, is a clear boot error', async () => {
    const dir = tempDir();
    const notPlugin = join(dir, 'not-plugin.mjs');
    writeFileSync(notPlugin, 'export default { hello: 1 };\n');
    await expect(startTestNode({ storage: 'memory', plugins: [notPlugin] })).rejects.toThrow(
      /plugin ".*not-plugin.mjs": plugin "name" must match/,
    );
    await expect(startTestNode({ storage: 'memory', plugins: ['./missing-plugin.js'] })).rejects.toThrow(
      /plugin "\.\/missing-plugin\.js" \(config "plugins"\): cannot load it/,
    );
    await expect(startTestNode({ storage: 'memory', plugins: ['no-such-package-svc'] })).rejects.toThrow(
      /first-party plugins are: validator, metrics/,
    );
  });

  it('a plugin must declare the kernel API it was written for, and the loader refuses another', async () => {
    const dir = tempDir();
    const undeclared = join(dir, 'undeclared.mjs');
    writeFileSync(
      undeclared,
      "export default { name: 'old', version: '1.0.0', description: 'written before kernelApi' };\n",
    );
    await expect(startTestNode({ storage: 'memory', plugins: [undeclared] })).rejects.toThrow(
      `plugin "old" declares no kernel API version ("kernelApi"); this node's kernel API is 1`,
    );
    const future = join(dir, 'future.mjs');
    writeFileSync(
      future,
      "export default { name: 'future', version: '1.0.0', kernelApi: 2, description: 'from a later kernel' };\n",
    );
    await expect(startTestNode({ storage: 'memory', plugins: [future] })).rejects.toThrow(
      `plugin "future" was written for kernel API 2; this node's kernel API is 1`,
    );
  });

  it("a plugin's own error reaches the client with its declared code and name, and rpc.discover lists it", async () => {
    running = await startTestNode({ storage: 'memory', plugins: [example], hello: { maxGreetings: 1 } });
    expect((await rpc(running.url, 'hello_greet', ['ada'])).body.result).toMatchObject({ count: 1 });
    expect((await rpc(running.url, 'hello_greet', ['ada'])).body.error).toEqual({
      code: -31001,
      message: 'greeted_enough',
      data: { reason: 'ada was greeted 1 times already', count: 1 },
    });
    const discover = (
      await rpc<{ methods: { name: string; errors: { code: number; message: string }[] }[] }>(
        running.url,
        'rpc.discover',
      )
    ).body.result!;
    expect(discover.methods.find((m) => m.name === 'hello_greet')?.errors).toEqual([
      expect.objectContaining({ code: -32602, message: 'invalid_params' }),
      expect.objectContaining({ code: -31001, message: 'greeted_enough' }),
    ]);
  });

  it('refuses to start a plugin whose error takes a name or a code declared otherwise, or whose method lists an error no one declares, naming both, and leaves no data dir', async () => {
    const dir = tempDir();
    const plugin = (name: string, errors: object, methodErrors: string[] = []) => {
      const file = join(dir, `${name}.mjs`);
      writeFileSync(
        file,
        `export default {
  name: '${name}', version: '1.0.0', kernelApi: 1, description: 'declares errors',
  errors: ${JSON.stringify(errors)},
  rpc: (method) => [method({ name: '${name}_call', summary: 'x', params: [], result: { type: 'null' }, errors: ${JSON.stringify(methodErrors)}, handler: () => null })],
};
`,
      );
      return file;
    };
    const cases: [string, string][] = [
      [
        plugin('renamer', { not_found: { code: -31010, description: 'mine' } }),
        'error "not_found" of plugin "renamer" is already declared by the kernel (code -32030)',
      ],
      [
        plugin('squatter', { my_error: { code: -32030, description: 'mine' } }),
        'error "my_error" of plugin "squatter" has code -32030, which is "not_found"\'s, declared by the kernel',
      ],
      [
        plugin('copier', { cooldown_active: { code: -32010, description: "not the faucet's" } }),
        'error "cooldown_active" of plugin "copier" is already declared by plugin "faucet" (code -32010)',
      ],
      [
        plugin('lister', {}, ['no_such_error']),
        'method "lister_call" of plugin "lister" lists "no_such_error", which no loaded plugin declares',
      ],
    ];
    for (const [file, message] of cases) {
      const dataDir = join(tempDir(), 'data');
      await expect(startTestNode({ dataDir, plugins: [file] })).rejects.toThrow(message);
      expect(existsSync(dataDir), message).toBe(false);
    }
  });
});

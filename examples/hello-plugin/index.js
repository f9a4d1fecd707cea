// A third-party plugin: one RPC method, one storage namespace, one config key.
// Enable it with `"plugins": ["./examples/hello-plugin/index.js"]` in a config file,
// or `svc-node start --plugin ./examples/hello-plugin/index.js`.
import { definePlugin, param, Type } from 'svc-node/plugin';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export default definePlugin({
  name: 'hello',
  version: '1.0.0',
  kernelApi: 1,
  description: 'greets by name and counts greetings per name',
  config: Type.Object({ greeting: Type.String({ default: 'hello', minLength: 1 }) }, { additionalProperties: false }),
  namespaces: [{ name: 'hello.counts', description: 'utf-8 name -> decimal count of greetings' }],
  init(ctx) {
    const counts = ctx.namespace('hello.counts');
    return {
      greeting: ctx.config.greeting,
      async greet(name) {
        const key = encoder.encode(name);
        const previous = await counts.get(key);
        const count = (previous ? Number(decoder.decode(previous)) : 0) + 1;
        await counts.put(key, encoder.encode(String(count)));
        ctx.log.info({ name, count }, 'greeted');
        return { message: `${ctx.config.greeting}, ${name}!`, count };
      },
    };
  },
  rpc: (method) => [
    method({
      name: 'hello_greet',
      summary: 'Greets someone and says how often they were greeted.',
      params: [param('name', Type.String({ minLength: 1, maxLength: 64 }))],
      result: Type.Object({ message: Type.String(), count: Type.Integer({ minimum: 1 }) }),
      handler: ([name], { service }) => service.greet(name),
    }),
  ],
});

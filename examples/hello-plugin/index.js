// A third-party plugin: one RPC method, one storage namespace, two config keys, one error of its own.
// Enable it with `"plugins": ["./examples/hello-plugin/index.js"]` in a config file,
// or `svc-node start --plugin ./examples/hello-plugin/index.js`.
import { defineLayout, definePlugin, param, pluginErrors, Type, utf8Text } from 'svc-node/plugin';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Greetings per name, the count stored as decimal text. */
const COUNTS = defineLayout('hello.counts', utf8Text('name'), {
  layout: 'decimal count of greetings',
  encode: (count) => encoder.encode(String(count)),
  decode: (bytes) => Number(decoder.decode(bytes)),
});

// Its own error, declared with its code: the node refuses to start if another plugin declared the
// name or the code otherwise, and lists it in rpc.discover for hello_greet.
const { declarations: errors, error } = pluginErrors({
  greeted_enough: {
    code: -31001,
    description: 'the name was greeted `maxGreetings` times already; `data.count`',
  },
});

export default definePlugin({
  name: 'hello',
  version: '1.0.0',
  kernelApi: 1,
  description: 'greets by name and counts greetings per name',
  config: Type.Object(
    {
      greeting: Type.String({ default: 'hello', minLength: 1 }),
      maxGreetings: Type.Integer({ default: 1000, minimum: 1 }),
    },
    { additionalProperties: false },
  ),
  errors,
  namespaces: [COUNTS],
  init(ctx) {
    const counts = ctx.table(COUNTS);
    return {
      greeting: ctx.config.greeting,
      async greet(name) {
        const count = ((await counts.get(name)) ?? 0) + 1;
        if (count > ctx.config.maxGreetings)
          throw error('greeted_enough', `${name} was greeted ${ctx.config.maxGreetings} times already`, {
            count: count - 1,
          });
        await counts.putNow(name, count);
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
      errors: ['invalid_params', 'greeted_enough'],
      handler: ([name], { service }) => service.greet(name),
    }),
  ],
});

// A third-party plugin with chain rules: a transaction kind and a genesis entry. It imports only the
// public `svc-node/plugin` export. Every node of a network must load it (the genesis and every block
// that holds a `tally.add` depend on it): `svc-node start --plugin ./examples/tally-plugin/index.js`.
import { decode, definePlugin, encode, param, Type, TxFailure } from 'svc-node/plugin';

const LIMIT_KEY = 'tally/limit';
const countKey = (address) => `tally/counts/${address}`;
const readCount = (read, address) => {
  const raw = read(countKey(address));
  return raw ? Number(new TextDecoder().decode(raw)) : 0;
};

export default definePlugin({
  name: 'tally',
  version: '1.0.0',
  kernelApi: 1,
  description: 'counts per account, raised by a signed tally.add transaction, up to a limit set in the genesis',
  requires: ['chain-reader'],
  // Block 0 holds the limit: from the genesis file's "tallyLimit", else 10.
  genesis: ({ params }) => [[LIMIT_KEY, encode(params.tallyLimit ?? 10)]],
  init: (ctx) => ctx.use('chain-reader'),
  txKinds: (kind) => [
    kind({
      kind: 'tally.add',
      summary: "raises the signer's tally by `by` (1 to 10), up to the genesis limit",
      payload: Type.Object({ by: Type.Integer({ minimum: 1, maximum: 10 }) }, { additionalProperties: false }),
      execute(ctx) {
        const limit = decode(ctx.readState(LIMIT_KEY));
        const next = readCount((key) => ctx.readState(key), ctx.tx.from) + ctx.payload.by;
        if (next > limit) throw new TxFailure('invalid_params', `the tally would pass its limit of ${limit}`);
        ctx.writeState(countKey(ctx.tx.from), new TextEncoder().encode(String(next)));
      },
    }),
  ],
  rpc: (method) => [
    method({
      name: 'tally_get',
      summary: "An account's tally at the head.",
      params: [param('address', Type.String({ pattern: '^svc1[0-9a-f]{40}$' }))],
      result: Type.Integer({ minimum: 0 }),
      handler: ([address], { service }) => readCount((key) => service.state.get(key), address),
    }),
  ],
});

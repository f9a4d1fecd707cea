import Type, { type Static, type TObject, type TProperties, type TSchema } from 'typebox';
import type { MethodFactory, RpcMethod } from '../../kernel/plugin.js';
import { formatAmountShort } from '../../sdk/amount.js';
import type { ProviderRegistry } from './registry-service.js';

/** How a kind's provider list reads: its method, and the fields its registration details show as. */
export interface ProviderListSpec<Svc extends ProviderRegistry, F extends TProperties> {
  readonly name: string;
  readonly summary: string;
  readonly fields: F;
  view(details: DetailsIn<Svc>): Static<TObject<F>>;
}

type DetailsIn<Svc extends ProviderRegistry> = ReturnType<Svc['active']>[number]['details'];

/** A kind's active providers as its registry reads them at the head: the fields every kind shares, and its own. */
export function listProvidersMethod<Svc extends ProviderRegistry, F extends TProperties>(
  method: MethodFactory<Svc>,
  spec: ProviderListSpec<Svc, F>,
): RpcMethod {
  const Provider = Type.Object(
    {
      operator: Type.String(),
      peerId: Type.String(),
      ...spec.fields,
      bond_ogt: Type.String(),
      registeredAt: Type.Integer({ description: 'block of the registration' }),
    },
    { additionalProperties: false },
  );
  return method({
    name: spec.name,
    summary: spec.summary,
    params: [],
    // Typed loosely: TypeBox cannot type a spread of generic fields; `view` is typed by the fields instead.
    result: Type.Array(Provider) as TSchema,
    handler: (_params, { service }) =>
      service.active().map((record) => ({
        operator: record.operator,
        peerId: record.peerId,
        ...spec.view(record.details),
        bond_ogt: formatAmountShort(BigInt(record.bond)),
        registeredAt: record.registeredAt,
      })),
  });
}

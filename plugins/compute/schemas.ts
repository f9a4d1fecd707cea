import Type from 'typebox';
import { AddressSchema } from '../../chain/schemas.js';
import { BondOgtSchema, RegistrationBaseSchema } from '../providers/inputs.js';
import { Capabilities } from '../oon/provider-kind.js';

/** The registration's fields, exactly: anything else is refused. */
export const ComputeRegistrationSchema = Type.Object(
  {
    operator: AddressSchema,
    capabilities: Capabilities,
    bond_ogt: BondOgtSchema,
    max_concurrent_jobs: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  },
  { additionalProperties: false },
);

export const ComputeStatusSchema = Type.Object(
  {
    ...RegistrationBaseSchema,
    capabilities: Type.Array(Type.String()),
    max_concurrent_jobs: Type.Integer({ minimum: 0 }),
    activeJobs: Type.Integer({ minimum: 0 }),
    completedJobs: Type.Integer({ minimum: 0 }),
    dedicated: Type.Boolean({
      description:
        'true on a --role compute node, which dedicates its capacity; a validator or full node offers idle capacity',
    }),
  },
  { additionalProperties: false },
);

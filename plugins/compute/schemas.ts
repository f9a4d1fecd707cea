import Type from 'typebox';
import { AddressSchema } from '../../kernel/chain/schemas.js';
import { BondOgtSchema, RegistrationBaseSchema } from '../providers/inputs.js';

export const RUNTIMES = ['wasm', 'evm'] as const;
export const Capabilities = Type.Array(Type.Union(RUNTIMES.map((r) => Type.Literal(r))), { minItems: 1, uniqueItems: true, description: 'distinct runtimes: wasm, evm' });

/** SPEC 4.4: exactly these fields. */
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
  },
  { additionalProperties: false },
);

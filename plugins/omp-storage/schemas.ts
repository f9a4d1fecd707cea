import Type from 'typebox';
import { AddressSchema } from '../../chain/schemas.js';
import { BondOgtSchema, RegistrationBaseSchema } from '../providers/inputs.js';
import { Formats } from '../omp/provider-kind.js';

/** The registration's fields, exactly: anything else is refused. */
export const StorageRegistrationSchema = Type.Object(
  {
    operator: AddressSchema,
    storage_capacity_gb: Type.Number({ exclusiveMinimum: 0, maximum: 1e12 }),
    bond_ogt: BondOgtSchema,
    supported_formats: Formats,
  },
  { additionalProperties: false },
);

export const StorageStatusSchema = Type.Object(
  {
    ...RegistrationBaseSchema,
    storage_capacity_gb: Type.Number({ minimum: 0 }),
    supported_formats: Type.Array(Type.String()),
    usedBytes: Type.Integer({ minimum: 0 }),
    objects: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

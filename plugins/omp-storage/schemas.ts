import Type from 'typebox';
import { AddressSchema } from '../../chain/schemas.js';
import { BondOgtSchema, RegistrationBaseSchema } from '../providers/inputs.js';

export const FORMATS = ['image', 'video', 'document'] as const;
export const Formats = Type.Array(Type.Union(FORMATS.map((f) => Type.Literal(f))), { minItems: 1, uniqueItems: true, description: 'distinct media formats: image, video, document' });

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

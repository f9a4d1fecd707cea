import type { ErrorDeclarations } from '../sdk/errors.js';

/** The object store's refusals, declared alike by the OMP plugins that reach it (deals and the storage node). */
export const OBJECT_ERRORS = {
  unsupported_format: {
    code: -32050,
    description: 'an object whose media type the storage node does not serve (PUT /omp/objects answers HTTP 415)',
  },
  capacity_exceeded: {
    code: -32051,
    description: "an object or deal beyond the node's storage capacity (PUT /omp/objects answers HTTP 507)",
  },
  object_too_large: {
    code: -32052,
    description: "an upload over the node's size limit for one object (PUT /omp/objects answers HTTP 413)",
  },
  range_not_satisfiable: {
    code: -32053,
    description: 'a byte range that starts past the end of the object (GET /ipfs/<cid> answers HTTP 416)',
  },
} as const satisfies ErrorDeclarations;

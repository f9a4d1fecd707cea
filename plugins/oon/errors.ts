import type { ErrorDeclarations } from '../../sdk/errors.js';

/** OON's refusals. */
export const OON_ERRORS = {
  job_rejected: {
    code: -32040,
    description:
      'a compute job refused at submission (module invalid, refused import or feature, over a limit); `data` says which',
  },
} as const satisfies ErrorDeclarations;

import { describe, expect, it } from 'vitest';
import { domainError, isDomainError, RpcError } from '../../sdk/errors.js';

describe('isDomainError', () => {
  it('tells a domain error by its name and table code, not by its sentence', () => {
    const cooldown = domainError('cooldown_active', 'asked again within the cooldown', { retryAfterSeconds: 5 });
    expect(isDomainError(cooldown, 'cooldown_active')).toBe(true);
    expect(isDomainError(cooldown, 'not_found', 'cooldown_active')).toBe(true);
    expect(isDomainError(cooldown, 'not_found')).toBe(false);
    // The same name with another code is not that error (a node's own table decides the code).
    expect(isDomainError(new RpcError(-32000, 'cooldown_active'), 'cooldown_active')).toBe(false);
    // A plain Error whose message happens to be the name is not a domain error.
    expect(isDomainError(new Error('cooldown_active'), 'cooldown_active')).toBe(false);
    expect(isDomainError(undefined, 'cooldown_active')).toBe(false);
  });
});

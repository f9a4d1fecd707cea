import { describe, expect, it } from 'vitest';
import { ErrorRegistry } from '../../../kernel/rpc/error-registry.js';
import { KERNEL_ERRORS } from '../../../kernel/rpc/kernel-errors.js';
import { OBJECT_ERRORS } from '../../../objects/errors.js';

describe('the error registry', () => {
  it('takes a library table two plugins both declare alike (the OMP plugins share the object store), and refuses the same name declared otherwise', () => {
    const errors = new ErrorRegistry(KERNEL_ERRORS);
    errors.declare(OBJECT_ERRORS, 'omp');
    errors.declare(OBJECT_ERRORS, 'omp-storage');
    expect(errors.get('capacity_exceeded')).toMatchObject({ owner: 'omp', code: OBJECT_ERRORS.capacity_exceeded.code });
    expect(() =>
      errors.declare(
        { capacity_exceeded: { code: OBJECT_ERRORS.capacity_exceeded.code, description: 'other words' } },
        'x',
      ),
    ).toThrow('error "capacity_exceeded" of plugin "x" is already declared by plugin "omp"');
  });

  it('lets one declarer give several names one code (the kernel: invalid_address and invalid_params), but no other declarer', () => {
    const errors = new ErrorRegistry(KERNEL_ERRORS);
    expect([errors.get('invalid_address')?.code, errors.get('invalid_params')?.code]).toEqual([-32602, -32602]);
    expect(() => errors.declare({ bad_thing: { code: -32602, description: 'mine' } }, 'x')).toThrow(
      'error "bad_thing" of plugin "x" has code -32602, which is "invalid_address"\'s, declared by the kernel',
    );
  });

  it('refuses a name that is not snake_case and a code that is not an integer', () => {
    const errors = new ErrorRegistry({});
    expect(() => errors.declare({ BadName: { code: -1, description: 'x' } }, 'x')).toThrow(
      'plugin "x": error name "BadName" must be snake_case',
    );
    expect(() => errors.declare({ bad_code: { code: 1.5, description: 'x' } }, 'x')).toThrow(
      'plugin "x": error "bad_code" needs an integer code',
    );
    expect(errors.list()).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { jobArgs } from '../../bin/job-command.js';

describe('svc job args', () => {
  it('takes each --arg exactly, commas and all, or --args as a JSON array of strings, or comma-separated', () => {
    expect(jobArgs({ arg: ['a,b', '--flag', ''] })).toEqual(['a,b', '--flag', '']);
    expect(jobArgs({ arg: 'one' })).toEqual(['one']);
    expect(jobArgs({ args: '["a,b", "c"]' })).toEqual(['a,b', 'c']);
    expect(jobArgs({ args: 'x,y' })).toEqual(['x', 'y']);
    expect(jobArgs({})).toEqual([]);
  });

  it('refuses --arg with --args, and --args that look like JSON but are not an array of strings', () => {
    expect(() => jobArgs({ arg: 'a', args: 'b' })).toThrow(/give the args one way/);
    expect(() => jobArgs({ args: '["a", 1]' })).toThrow(/a JSON array of strings/);
    expect(() => jobArgs({ args: '[oops' })).toThrow(/not one/);
  });
});

import { describe, expect, it } from 'vitest';
import { StateOverlay } from '../../../chain/state/overlay.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const base = { get: (key: string) => (key === 'kept' || key === 'dropped' ? bytes(key) : undefined) };

describe('state overlay', () => {
  it('changes the base by its writes, leaving out keys written and deleted again that the base never had', () => {
    const overlay = new StateOverlay(base);
    overlay.set('new', bytes('n'));
    overlay.set('kept', bytes('k2'));
    overlay.delete('dropped');
    overlay.set('transient', bytes('t'));
    overlay.delete('transient');
    overlay.delete('never');
    expect([...overlay.changes]).toEqual([
      ['new', bytes('n')],
      ['kept', bytes('k2')],
      ['dropped', undefined],
    ]);
    // Reads still see the deletion.
    expect(overlay.get('transient')).toBeUndefined();
  });

  it('judges a child by its own base: a key its parent wrote and it deletes is a change', () => {
    const parent = new StateOverlay(base);
    parent.set('made', bytes('m'));
    const child = parent.child();
    child.delete('made');
    expect([...child.changes]).toEqual([['made', undefined]]);
    child.mergeInto(parent);
    expect([...parent.changes]).toEqual([]);
  });
});

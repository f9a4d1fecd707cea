import { describe, expect, it } from 'vitest';
import { SyncState } from '../../p2p/sync-state.js';
import { waitFor } from '../helpers/test-node.js';

function tracker(graceMs: number) {
  let head = 0;
  let now = 1_000;
  const changes: boolean[] = [];
  const state = new SyncState(
    () => head,
    (synced) => changes.push(synced),
    { window: 2, graceMs, now: () => now },
  );
  return { state, changes, setHead: (h: number) => (head = h), advance: (ms: number) => (now += ms) };
}

describe('sync state', () => {
  it('is synced as soon as the head is within 2 blocks of the best peer head, and not before', () => {
    const t = tracker(2_000);
    t.state.reportPeerHead(10);
    expect(t.state.isSynced).toBe(false);
    t.setHead(7);
    t.state.update();
    expect(t.state.isSynced).toBe(false);
    t.setHead(8);
    t.state.update();
    expect(t.state.isSynced).toBe(true);
    expect(t.changes).toEqual([true]);
  });

  it('stays synced through a lag shorter than the grace, and stops being synced once the lag outlasts it', async () => {
    const t = tracker(2_000);
    t.setHead(10);
    t.state.reportPeerHead(10);
    t.state.reportPeerHead(14);
    expect(t.state.isSynced).toBe(true);
    t.advance(1_999);
    t.state.update();
    expect(t.state.isSynced).toBe(true);
    t.setHead(13);
    t.state.update();
    t.state.reportPeerHead(16);
    // Caught up within the grace: the clock restarts with the next lag.
    t.advance(1_500);
    t.state.update();
    expect(t.state.isSynced).toBe(true);
    t.advance(2_000);
    t.state.update();
    expect(t.state.isSynced).toBe(false);
    expect(t.changes).toEqual([true, false]);
    t.state.close();
  });

  it('reports leaving by itself when the grace runs out with nothing else happening (a timer), and counts losing every peer as lagging', async () => {
    let synced: boolean[] = [];
    const state = new SyncState(
      () => 5,
      (s) => synced.push(s),
      { window: 2, graceMs: 30 },
    );
    state.reportPeerHead(5);
    state.reportPeerHead(undefined);
    expect(state.isSynced).toBe(true);
    await waitFor(
      () => synced,
      (changes) => changes.at(-1) === false,
      2_000,
      'the grace to run out',
    );
    expect(synced).toEqual([true, false]);
    synced = [];
    state.close();
  });
});

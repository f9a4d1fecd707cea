import { describe, expect, it } from 'vitest';
import { BlockActivity } from '../../chain/block-activity.js';
import { captureLog } from '../helpers/log-capture.js';

describe('block activity summary', () => {
  it('says in one info line what was committed since the last one, and nothing when nothing was', () => {
    const logs = captureLog();
    const activity = new BlockActivity();
    activity.report(logs.log, 0);
    expect(logs.lines).toEqual([]);
    activity.count('produced', 3, 2);
    activity.count('imported', 0, 4);
    activity.count('imported', 1, 3);
    activity.report(logs.log, 12);
    expect(logs.lines).toHaveLength(1);
    expect(logs.lines[0]).toMatchObject({
      level: 30,
      head: 12,
      produced: 1,
      imported: 2,
      transactions: 4,
      msPerBlock: 3,
    });
    expect(String(logs.lines[0]!.msg)).toMatch(
      /^head 12: 3 blocks in \d+ s \(1 produced, 2 imported\), 4 tx, 3 ms a block$/,
    );
    activity.report(logs.log, 12);
    expect(logs.lines).toHaveLength(1);
  });
});

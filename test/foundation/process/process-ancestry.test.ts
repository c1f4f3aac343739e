/**
 * Process ancestry from /proc: a child descends from its parent and from itself, not the other
 * way round; an ancestor named with another start time (a reused pid) is not an ancestor.
 */
import { spawn } from 'node:child_process';

import { describe, expect, it } from 'vitest';

import { descendsFrom, stampOf } from '../../../src/foundation/process/process-ancestry.js';

describe('process ancestry', () => {
  it('follows parents up from a process, with start times', async () => {
    const me = stampOf(process.pid);
    if (me === undefined) throw new Error('no /proc entry for this process');
    const child = spawn('/bin/sleep', ['30'], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
    try {
      const pid = child.pid ?? 0;
      const stamp = stampOf(pid);
      expect(stamp?.pid).toBe(pid);
      expect(descendsFrom(pid, me)).toBe(true);
      expect(descendsFrom(process.pid, me)).toBe(true);
      if (stamp === undefined) throw new Error('no /proc entry for the child');
      expect(descendsFrom(process.pid, stamp)).toBe(false);
      expect(descendsFrom(pid, { pid: process.pid, start: `${me.start}1` })).toBe(false);
    } finally {
      child.kill();
      await new Promise((resolve) => child.once('close', resolve));
    }
    expect(stampOf(child.pid ?? 0)).toBeUndefined();
    expect(descendsFrom(child.pid ?? 0, me)).toBe(false);
  });
});

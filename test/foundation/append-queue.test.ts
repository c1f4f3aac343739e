/**
 * Appending to a log file: lines stay in order, a burst goes out in a few writes rather than one
 * each, the file is owner-only, `flushed` waits for what was appended before and after it was
 * asked, and a write that fails is dropped without stopping the queue.
 */
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it, vi } from 'vitest';

import { AppendQueue, AppendQueues } from '../../src/foundation/append-queue.js';

vi.mock('node:fs/promises', async (original) => {
  const real = await original<typeof import('node:fs/promises')>();
  return { ...real, appendFile: vi.fn(real.appendFile) };
});

describe('AppendQueue', () => {
  it('writes a burst in order, in few writes, owner-only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'append-'));
    const file = join(dir, 'log.jsonl');
    const queue = new AppendQueue(file);
    const writes = vi.mocked(fs.appendFile);
    writes.mockClear();
    const lines = Array.from({ length: 500 }, (_, i) => `line ${String(i)}\n`);
    for (const line of lines) queue.append(line);
    await queue.flushed();
    expect(await readFile(file, 'utf8')).toBe(lines.join(''));
    expect(writes.mock.calls.length).toBeLessThanOrEqual(2);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // appended while a write is under way: the next write, still in order
    queue.append('a\n');
    const first = queue.flushed();
    queue.append('b\n');
    await first;
    expect((await readFile(file, 'utf8')).endsWith('a\nb\n')).toBe(true);
    await expect(new AppendQueue(join(dir, 'none')).flushed()).resolves.toBeUndefined();
  });

  it('drops what it cannot write and goes on', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'append-'));
    const missing = new AppendQueue(join(dir, 'no-such-dir', 'log'));
    missing.append('lost\n');
    await missing.flushed();
    const queues = new AppendQueues();
    queues.append(join(dir, 'no-such-dir', 'log'), 'lost\n');
    queues.append(join(dir, 'a.log'), 'one\n');
    queues.append(join(dir, 'b.log'), 'two\n');
    queues.append(join(dir, 'a.log'), 'three\n');
    await queues.flushed();
    expect(await readFile(join(dir, 'a.log'), 'utf8')).toBe('one\nthree\n');
    expect(await readFile(join(dir, 'b.log'), 'utf8')).toBe('two\n');
  });
});

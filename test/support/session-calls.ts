/**
 * What `codex-mmo session calls ID --json` shows of a session in a test world: the command must
 * succeed, and its calls come back as records (role, server, tool, outcome, reason, …).
 */
import { expect } from 'vitest';

import { runInWorld, type World } from './world.js';

/** The calls `session calls <id> --json` lists, after checking that it exited 0. */
export async function sessionCalls(world: World, id: string): Promise<Record<string, unknown>[]> {
  const shown = await runInWorld(world, ['session', 'calls', id, '--json']);
  expect(shown.code, shown.stderr).toBe(0);
  return (JSON.parse(shown.stdout) as { calls: Record<string, unknown>[] }).calls;
}

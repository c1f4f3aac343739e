/**
 * Process hooks: any number of hooks on one event adds a single process listener (no listener
 * warning for a session with many servers), each hook runs once per event with the signal's
 * name, and removing the last hook removes the listener.
 */
import { describe, expect, it } from 'vitest';

import {
  addProcessHook,
  removeProcessHook,
} from '../../../src/foundation/process/process-hooks.js';

describe('process hooks', () => {
  it('share one listener, run each hook, and leave nothing once removed', () => {
    const before = process.listenerCount('SIGUSR2');
    const seen: string[] = [];
    const hooks = Array.from({ length: 20 }, (_, i) => (signal: NodeJS.Signals) => {
      seen.push(`${String(i)}:${signal}`);
    });
    for (const hook of hooks) addProcessHook('SIGUSR2', hook);
    expect(process.listenerCount('SIGUSR2')).toBe(before + 1);
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(seen).toEqual(hooks.map((_, i) => `${String(i)}:SIGUSR2`));
    for (const hook of hooks.slice(0, 19)) removeProcessHook('SIGUSR2', hook);
    expect(process.listenerCount('SIGUSR2')).toBe(before + 1);
    removeProcessHook('SIGUSR2', hooks[19] ?? (() => undefined));
    expect(process.listenerCount('SIGUSR2')).toBe(before);
  });
});

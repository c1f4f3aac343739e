/**
 * The pseudo-terminal driver: a program sees a terminal of the asked size, reads typed keys, and
 * its drawn text and exit code come back.
 */
import { describe, expect, it } from 'vitest';

import { KEYS, startTui, stripEscapes } from './tui.js';

describe('startTui', () => {
  it('gives the program a terminal of the asked size, takes keys and returns its exit code', async () => {
    const tui = startTui(
      'sh',
      ['-c', 'test -t 0 && echo "tty $(stty size)"; read answer; echo "got:$answer"; exit 3'],
      { cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, cols: 90, rows: 30 },
    );
    await tui.waitFor(/tty 30 90/, 10_000);
    tui.type(`yes it's me${KEYS.enter}`);
    await tui.waitFor(/got:yes it's me/, 10_000);
    expect(await tui.exited).toBe(3);
  });

  it('rejects with the screen when the text never comes', async () => {
    const tui = startTui('sh', ['-c', 'echo nothing-here'], {
      cwd: '/',
      env: { PATH: '/usr/bin:/bin' },
    });
    await expect(tui.waitFor(/never/, 2_000)).rejects.toThrow(/nothing-here/);
    await tui.exited;
  });
});

describe('stripEscapes', () => {
  it('removes colour, cursor and title sequences', () => {
    expect(stripEscapes('\x1b[1;31mred\x1b[0m \x1b]0;title\x07\x1b[?25lok\x1b7')).toBe('red ok');
  });
});

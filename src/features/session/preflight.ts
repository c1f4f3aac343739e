/**
 * Checks made before a session is recorded, so that a launch that cannot work fails as a
 * codex-mmo diagnostic (exit 1) instead of as Codex's or a shell's error: the working directory
 * exists and is a directory, and a Codex binary that is a script names an interpreter that exists.
 */
import { constants } from 'node:fs';
import { access, open, stat } from 'node:fs/promises';

import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';

/** A `session-cwd-invalid` diagnostic when `cwd` is not an existing directory. */
export async function checkSessionCwd(cwd: string): Promise<Diagnostic | undefined> {
  const found = await stat(cwd).then(
    (s) => (s.isDirectory() ? 'ok' : 'not a directory'),
    (error: unknown) =>
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'cannot be read',
  );
  if (found === 'ok') return undefined;
  return diagnostic({
    code: 'session-cwd-invalid',
    message: `the working directory ${cwd} ${found}; pass --cwd an existing directory`,
  });
}

/**
 * A `codex-bin-interpreter-missing` diagnostic when `bin` starts with `#!` and the interpreter it
 * names is not an executable file (the kernel would fail the launch with ENOENT or EACCES).
 */
export async function checkInterpreter(bin: string): Promise<Diagnostic | undefined> {
  let head: string;
  try {
    const handle = await open(bin, 'r');
    try {
      const buffer = Buffer.alloc(256);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      head = buffer.subarray(0, bytesRead).toString('latin1');
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
  if (!head.startsWith('#!')) return undefined;
  const interpreter = head.slice(2).split('\n')[0]?.trim().split(/\s+/)[0] ?? '';
  if (!interpreter.startsWith('/')) return undefined;
  const ok = await access(interpreter, constants.X_OK).then(
    () => stat(interpreter).then((s) => s.isFile()),
    () => false,
  );
  if (ok) return undefined;
  return diagnostic({
    code: 'codex-bin-interpreter-missing',
    message: `the Codex binary ${bin} is a script whose interpreter ${interpreter} (its #! line) is not an executable file; install the interpreter or pass --codex-bin the real Codex`,
  });
}

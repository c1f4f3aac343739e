/**
 * The one atomic write: a file is replaced whole with the asked mode (flushed or not), a new
 * file is created only when its name is free, no temporary file is left behind, and a refused
 * write is an IoError naming the file.
 */
import { mkdtemp, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { IoError } from '../../../src/foundation/errors.js';
import {
  writeFileAtomic,
  writeFileAtomicSync,
  writeNewFileAtomic,
} from '../../../src/foundation/paths/atomic-write.js';

async function scratch(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'codex-mmo-atomic-'));
}

describe('writeFileAtomic', () => {
  it('replaces a file whole with the given mode, durable or not, leaving no temp file', async () => {
    const dir = await scratch();
    const file = join(dir, 'sub', 'state.json');
    await writeFileAtomic(file, 'first\n', 0o600);
    await writeFileAtomic(file, 'second\n', 0o640, { durable: false });
    expect(await readFile(file, 'utf8')).toBe('second\n');
    const mode = (await stat(file)).mode & 0o777;
    expect(mode & ~0o640).toBe(0);
    expect(mode & 0o600).toBe(0o600);
    expect(await readdir(join(dir, 'sub'))).toEqual(['state.json']);
  });

  it('throws an IoError naming the file when the directory cannot hold it', async () => {
    const dir = await scratch();
    const blocker = join(dir, 'not-a-dir');
    await writeFile(blocker, 'x');
    const error = await writeFileAtomic(join(blocker, 'f.json'), 'x', 0o600).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(IoError);
    expect((error as IoError).message).toContain(join(blocker, 'f.json'));
  });
});

describe('writeFileAtomicSync', () => {
  it('replaces a file whole with the given mode, leaving no temp file', async () => {
    const dir = await scratch();
    const file = join(dir, 'entry.json');
    writeFileAtomicSync(file, 'first\n', 0o600);
    writeFileAtomicSync(file, 'second\n', 0o600);
    expect(await readFile(file, 'utf8')).toBe('second\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['entry.json']);
  });

  it('throws an IoError naming the file, leaving no temp file', async () => {
    const dir = await scratch();
    const blocker = join(dir, 'not-a-dir');
    await writeFile(blocker, 'x');
    const file = join(blocker, 'f.json');
    expect(() => {
      writeFileAtomicSync(file, 'x', 0o600);
    }).toThrow(IoError);
    expect(() => {
      writeFileAtomicSync(file, 'x', 0o600);
    }).toThrow(file);
    expect(await readdir(dir)).toEqual(['not-a-dir']);
  });
});

describe('writeNewFileAtomic', () => {
  it('writes a free name and leaves a taken one as it was', async () => {
    const dir = await scratch();
    const file = join(dir, 'fragment.toml');
    expect(await writeNewFileAtomic(file, 'new\n', 0o644)).toEqual({ kind: 'written' });
    expect(await writeNewFileAtomic(file, 'other\n', 0o644)).toEqual({ kind: 'exists' });
    expect(await readFile(file, 'utf8')).toBe('new\n');
    expect(await readdir(dir)).toEqual(['fragment.toml']);
  });
});

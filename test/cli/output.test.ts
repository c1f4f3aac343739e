/**
 * The executable's output: a closed pipe ends a command quietly (nothing on stderr, and the exit
 * code of a command that finished: 0, or 1 for a registry with errors), a
 * stdout that cannot be written (`> /dev/full`) gives one line on stderr and exit 1, never a stack
 * trace, and a non-blocking descriptor that fills hands the rest of the text, in order, to the
 * stream (`fdWriter` on a real FIFO).
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { fdWriter } from '../../src/cli/fd-writer.js';

/** The built executable (this file runs no Codex, so it does not use the session test world). */
const CLI = resolve(import.meta.dirname, '../../dist/cli/main.js');
function requireBuild(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing; run 'npm run build' first`);
}

const base = mkdtempSync(join(tmpdir(), 'codex-mmo-output-'));
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

const env = { PATH: process.env.PATH ?? '', HOME: join(base, 'home') };

describe('the executable writing to a broken stdout', () => {
  it.each([
    [['tool-mcp', 'schema']],
    [['tool-mcp', 'list', '--json']],
    [['--help']],
    [['--version', '--json']],
    [['session', 'list', '--json']],
  ])('%j to /dev/full: one line on stderr, exit 1, no stack trace', (args) => {
    requireBuild();
    const full = openSync('/dev/full', 'w');
    try {
      const result = spawnSync(process.execPath, [CLI, ...args], {
        env,
        stdio: ['ignore', full, 'pipe'],
        encoding: 'utf8',
      });
      expect(result.status).toBe(1);
      const lines = result.stderr.trimEnd().split('\n');
      const last = lines.at(-1) ?? '';
      expect(last).toMatch(/^codex-mmo: .*ENOSPC/);
      expect(result.stderr).not.toMatch(/^\s+at /m);
      expect(lines.filter((l) => l.includes('ENOSPC'))).toHaveLength(1);
    } finally {
      closeSync(full);
    }
  });

  it('keeps the exit code of a command that failed when its reader had closed the pipe', async () => {
    requireBuild();
    const config = join(base, 'broken-config');
    mkdirSync(join(config, 'tool-mcp.d'), { recursive: true });
    writeFileSync(join(config, 'tool-mcp.d', '10-broken.toml'), 'schema_version = 8\n[oops\n');
    for (const args of [
      ['tool-mcp', 'validate', '--json'],
      ['tool-mcp', 'validate'],
      ['tool-mcp', 'list'],
    ]) {
      const child = spawn(process.execPath, [CLI, ...args, '--config-dir', config], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.destroy(); // closed before the command writes anything
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      expect(code, args.join(' ')).toBe(1);
      expect(stderr).not.toMatch(/^\s+at /m);
    }
  });

  it('ends quietly with exit 0 when the reader closes the pipe early', async () => {
    requireBuild();
    const child = spawn(process.execPath, [CLI, 'tool-mcp', 'schema'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // read one chunk, then close the pipe: the rest of the schema meets a closed pipe
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

describe('fdWriter on a non-blocking descriptor', () => {
  it('writes what fits, then hands the rest to the stream in order', () => {
    const fifo = join(base, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // read-write and non-blocking: the FIFO never blocks, so a full buffer gives EAGAIN
    const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    try {
      const streamed: Buffer[] = [];
      const stream = {
        on: () => stream,
        write: (chunk: Uint8Array | string) => {
          streamed.push(Buffer.from(chunk));
          return true;
        },
      } as unknown as NodeJS.WriteStream;
      const write = fdWriter(
        fd as 1,
        () => stream,
        () => {
          throw new Error('not closed');
        },
      );
      const text = Array.from({ length: 20_000 }, (_, i) => `line ${String(i)}\n`).join('');
      write(text);
      write('after\n');
      // what the FIFO holds, then what went to the stream, is the text in order
      const fromFifo: Buffer[] = [];
      const buffer = Buffer.alloc(65_536);
      for (;;) {
        let n = 0;
        try {
          n = readSync(fd, buffer);
        } catch {
          break; // EAGAIN: empty
        }
        if (n === 0) break;
        fromFifo.push(Buffer.from(buffer.subarray(0, n)));
      }
      expect(fromFifo.length).toBeGreaterThan(0);
      expect(streamed.length).toBeGreaterThan(0);
      expect(Buffer.concat([...fromFifo, ...streamed]).toString()).toBe(`${text}after\n`);
    } finally {
      closeSync(fd);
    }
  });
});

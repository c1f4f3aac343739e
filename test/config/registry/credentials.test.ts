import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

import { credentialSourceFrom, loadCredentials } from '../../../src/config/registry/credentials.js';
import { tmpDir } from '../../support/tmp.js';

describe('credentialSourceFrom', () => {
  it('prefers the launch environment over the file and reports the origin', () => {
    const source = credentialSourceFrom(
      { A: 'file-a', B: 'file-b' },
      { A: 'env-a', C: 'env-c' },
      '/cfg/credentials.env',
      true,
    );
    expect(source.lookup('A')).toEqual({ origin: 'environment', value: 'env-a' });
    expect(source.lookup('B')).toEqual({ origin: 'credentials.env', value: 'file-b' });
    expect(source.lookup('C')).toEqual({ origin: 'environment', value: 'env-c' });
    expect(source.lookup('D')).toBeUndefined();
    expect(source.file).toBe('/cfg/credentials.env');
    expect(source.fileExists).toBe(true);
  });

  it('treats empty values as absent, falling back from an empty environment value to the file', () => {
    const source = credentialSourceFrom({ A: 'file-a', B: '' }, { A: '', B: '' }, '/f', true);
    expect(source.lookup('A')).toEqual({ origin: 'credentials.env', value: 'file-a' });
    expect(source.lookup('B')).toBeUndefined();
  });

  it('does not treat inherited object properties as variables', () => {
    const source = credentialSourceFrom({}, {}, '/f', false);
    expect(source.lookup('toString')).toBeUndefined();
    expect(source.lookup('__proto__')).toBeUndefined();
  });

  it('lists secret values of the file and of looked-up environment variables only', () => {
    const source = credentialSourceFrom(
      { FILE_ONLY: 'v-file', BOTH: 'v-both-file' },
      { BOTH: 'v-both-env', LOOKED: 'v-looked', PATH: '/usr/bin' },
      '/f',
      true,
    );
    source.lookup('LOOKED');
    const secrets = [...source.secretValues()].sort();
    expect(secrets).toEqual(['v-both-env', 'v-both-file', 'v-file', 'v-looked']);
  });
});

describe('loadCredentials', () => {
  it('treats a missing file as empty, without diagnostics', async () => {
    const dir = await tmpDir();
    const { source, diagnostics } = await loadCredentials(join(dir, 'credentials.env'), {
      X: 'from-env',
    });
    expect(diagnostics).toEqual([]);
    expect(source.fileExists).toBe(false);
    expect(source.lookup('X')?.origin).toBe('environment');
  });

  it('parses dotenv syntax (comments, quotes, export, multi-line values)', async () => {
    const dir = await tmpDir();
    const file = join(dir, 'credentials.env');
    await writeFile(
      file,
      [
        '# comment',
        'PLAIN=plain-value',
        'QUOTED="quoted value # not a comment"',
        "SINGLE='single'",
        'export EXPORTED=exported-value',
        'MULTI="line1\nline2"',
        'SPACED = spaced-value   ',
        '',
      ].join('\n'),
    );
    await chmod(file, 0o600);
    const { source, diagnostics } = await loadCredentials(file, {});
    expect(diagnostics).toEqual([]);
    expect(source.fileExists).toBe(true);
    expect(source.lookup('PLAIN')?.value).toBe('plain-value');
    expect(source.lookup('QUOTED')?.value).toBe('quoted value # not a comment');
    expect(source.lookup('SINGLE')?.value).toBe('single');
    expect(source.lookup('EXPORTED')?.value).toBe('exported-value');
    expect(source.lookup('MULTI')?.value).toBe('line1\nline2');
    expect(source.lookup('SPACED')?.value).toBe('spaced-value');
    expect(source.lookup('PLAIN')?.origin).toBe('credentials.env');
  });

  it('warns with credentials-file-permissions when group or others have access', async () => {
    const dir = await tmpDir();
    const file = join(dir, 'credentials.env');
    await writeFile(file, 'TOKEN_X=canary-perm-value\n');
    for (const mode of [0o644, 0o640, 0o604, 0o601, 0o660]) {
      await chmod(file, mode);
      const { diagnostics, source } = await loadCredentials(file, {});
      expect(diagnostics).toHaveLength(1);
      expect(diagnostics[0]).toMatchObject({
        severity: 'warning',
        code: 'credentials-file-permissions',
        file,
      });
      expect(diagnostics[0]!.message).toContain(`chmod 600 ${file}`);
      expect(diagnostics[0]!.message).toContain(`0${mode.toString(8)}`);
      expect(JSON.stringify(diagnostics)).not.toContain('canary-perm-value');
      expect(source.lookup('TOKEN_X')?.value).toBe('canary-perm-value');
    }
    await chmod(file, 0o600);
    expect((await loadCredentials(file, {})).diagnostics).toEqual([]);
    await chmod(file, 0o400);
    expect((await loadCredentials(file, {})).diagnostics).toEqual([]);
  });

  it('reports a directory or a named pipe in place of the file without hanging', async () => {
    const dir = await tmpDir();
    const asDir = join(dir, 'a', 'credentials.env');
    await mkdir(asDir, { recursive: true });
    const r1 = await loadCredentials(asDir, {});
    expect(r1.diagnostics.map((d) => d.code)).toEqual(['credentials-file-unreadable']);
    expect(r1.diagnostics[0]!.message).toContain('directory');

    const fifo = join(dir, 'credentials.env');
    execFileSync('mkfifo', [fifo]);
    const r2 = await loadCredentials(fifo, { A: 'x' });
    expect(r2.diagnostics.map((d) => d.code)).toEqual(['credentials-file-unreadable']);
    expect(r2.diagnostics[0]!.message).toContain('named pipe');
    expect(r2.source.lookup('A')?.origin).toBe('environment');
  });
});

describe('credentials.env problems', () => {
  async function load(bytes: string | Buffer) {
    const dir = await tmpDir();
    const file = join(dir, 'credentials.env');
    await writeFile(file, bytes, { mode: 0o600 });
    await chmod(file, 0o600);
    return { file, ...(await loadCredentials(file, {})) };
  }

  it('each get a positioned diagnostic naming the variable, never the value', async () => {
    const text = Buffer.concat([
      Buffer.from(
        [
          'GOOD=good-value-1',
          'NUL_VAR=canary-nul\u0000-value',
          'HASH_VAR=canary#hash-value',
          'COMMENTED=plain-value # a trailing comment',
          'this line is canary-garbage-value',
          'AFTER="canary-after-value" trailing',
          '',
        ].join('\n'),
      ),
      Buffer.from('LATIN_VAR=canary-latin-'),
      Buffer.from([0xe9, 0x0a]),
      Buffer.from('OPEN="canary-open-value\nGOOD2=x\n'),
    ]);
    const { file, diagnostics, source } = await load(text);
    expect(
      diagnostics.map((d) => [d.code, d.line, d.column, d.path, d.file === file, d.severity]),
    ).toEqual([
      ['credentials-nul-character', 2, 9, 'NUL_VAR', true, 'error'],
      ['credentials-value-hash', 3, 16, 'HASH_VAR', true, 'error'],
      ['credentials-syntax', 5, 1, undefined, true, 'error'],
      ['credentials-syntax', 6, 1, 'AFTER', true, 'error'],
      ['credentials-invalid-utf8', 7, 24, 'LATIN_VAR', true, 'error'],
      ['credentials-unterminated-quote', 8, 6, 'OPEN', true, 'error'],
    ]);
    expect(JSON.stringify(diagnostics)).not.toMatch(/canary/);
    expect(source.lookup('GOOD')?.value).toBe('good-value-1');
    expect(source.lookup('COMMENTED')?.value).toBe('plain-value');
    for (const name of ['NUL_VAR', 'HASH_VAR', 'AFTER', 'LATIN_VAR', 'OPEN', 'GOOD2']) {
      expect(source.lookup(name), name).toBeUndefined();
    }
  });

  it('accepts CRLF lines, a BOM, quoted # and multi-line PEM values', async () => {
    const { diagnostics, source } = await load(
      '\uFEFFA=1\r\nB=\'x#y\'\r\nC="-----BEGIN X-----\nabc\n-----END X-----"\n',
    );
    expect(diagnostics).toEqual([]);
    expect(source.lookup('A')?.value).toBe('1');
    expect(source.lookup('B')?.value).toBe('x#y');
    expect(source.lookup('C')?.value).toBe('-----BEGIN X-----\nabc\n-----END X-----');
  });

  it('reports a huge unterminated multi-line value', { timeout: 60_000 }, async () => {
    const { diagnostics } = await load(`A="${'x\n'.repeat(400_000)}`);
    expect(diagnostics.map((d) => d.code)).toEqual(['credentials-unterminated-quote']);
  });
});

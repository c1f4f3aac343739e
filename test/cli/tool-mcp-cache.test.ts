/**
 * `tool-mcp list` and `validate` keep fragment results in `<state-dir>/cache/registry/`: a warm
 * run prints exactly what a cold run prints, readiness (variables, PATH, credentials) is checked
 * afresh every time, and no credential value (environment or credentials.env) reaches the cache.
 */
import { chmod, cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { runCli } from '../support/cli.js';
import { tmpDir } from '../support/tmp.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'config');
const PATH = process.env.PATH ?? '';
const CANARY_ENV = 'canary-env-value-4417';
const CANARY_FILE = 'canary-file-value-8831';

async function setup(): Promise<{ config: string; state: string; cache: string }> {
  const base = await tmpDir();
  const config = join(base, 'config');
  await cp(join(fixtures, 'basic'), config, { recursive: true });
  await writeFile(
    join(config, 'credentials.env'),
    `ECHO_TOKEN=${CANARY_FILE}\nWEB_ORG=${CANARY_FILE}-org\n`,
  );
  await chmod(join(config, 'credentials.env'), 0o600);
  const state = join(base, 'state');
  return { config, state, cache: join(state, 'cache', 'registry') };
}

async function cacheText(dir: string): Promise<string> {
  const names = await readdir(dir);
  const texts = await Promise.all(names.map((n) => readFile(join(dir, n), 'utf8')));
  return texts.join('\n');
}

describe('the registry cache of list and validate', () => {
  it('prints the same output cold and warm, and stores no credential value', async () => {
    const { config, state, cache } = await setup();
    const env = { PATH, ECHO_REGION: CANARY_ENV, WEB_TOKEN: CANARY_ENV };
    const dirs = ['--config-dir', config, '--state-dir', state];
    for (const command of [
      ['tool-mcp', 'validate', '--json'],
      ['tool-mcp', 'validate'],
      ['tool-mcp', 'list', '--json'],
      ['tool-mcp', 'list'],
    ]) {
      const cold = await runCli([...command, ...dirs], { env });
      const warm = await runCli([...command, ...dirs], { env });
      expect(
        { code: warm.code, stdout: warm.stdout, stderr: warm.stderr },
        command.join(' '),
      ).toEqual({ code: cold.code, stdout: cold.stdout, stderr: cold.stderr });
      expect(cold.code, cold.stderr).toBe(0);
    }
    const names = await readdir(cache);
    expect(names).toHaveLength(2);
    const text = await cacheText(cache);
    expect(text).not.toContain('canary');
  });

  it('checks readiness afresh on a warm cache: variables, credentials and PATH', async () => {
    const { config, state } = await setup();
    const dirs = ['--config-dir', config, '--state-dir', state];
    const validate = (env: Record<string, string>) =>
      runCli(['tool-mcp', 'validate', '--json', ...dirs], { env });
    const ready = await validate({ PATH, ECHO_REGION: 'eu', WEB_TOKEN: 't' });
    expect(ready.code, ready.stdout).toBe(0);

    const noVariable = await validate({ PATH, ECHO_REGION: 'eu' });
    expect(noVariable.code).toBe(1);
    expect(noVariable.stdout).toContain('WEB_TOKEN');

    await writeFile(join(config, 'credentials.env'), `WEB_ORG=o\n`);
    await chmod(join(config, 'credentials.env'), 0o600);
    const noCredential = await validate({ PATH, ECHO_REGION: 'eu', WEB_TOKEN: 't' });
    expect(noCredential.code).toBe(1);
    expect(noCredential.stdout).toContain('ECHO_TOKEN');

    const noPath = await validate({ PATH: '/nonexistent-bin', ECHO_REGION: 'eu', WEB_TOKEN: 't' });
    expect(noPath.code).toBe(1);
    expect(noPath.stdout).toContain('local-echo');
  });

  it('reports a fragment edited after caching as it now is', async () => {
    const { config, state } = await setup();
    const dirs = ['--config-dir', config, '--state-dir', state];
    const env = { PATH, ECHO_REGION: 'eu', WEB_TOKEN: 't' };
    expect((await runCli(['tool-mcp', 'validate', ...dirs], { env })).code).toBe(0);
    const file = join(config, 'tool-mcp.d', '20-remote.toml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('"approve"', '"sometimes"'));
    const edited = await runCli(['tool-mcp', 'validate', '--json', ...dirs], { env });
    expect(edited.code).toBe(1);
    expect(edited.stdout).toContain('default_tools_approval_mode');
  });
});

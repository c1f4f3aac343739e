/**
 * `profile doctor`'s model side, measured with real Codex: an unknown codex-base.toml key (as
 * `codex app-server --strict-config` sees it) is reported at its position with a did-you-mean,
 * and the login and provider key are reported by presence, never by value.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import {
  CODEX,
  echoServer,
  makeWorld,
  profileToml,
  requireBuild,
  runInWorld,
  type World,
} from '../../support/world.js';

interface DoctorJson {
  diagnostics: { code: string; line?: number; column?: number; path?: string; message: string }[];
  model?: { provider: string; auth_json: boolean; env_key?: { name: string; present: boolean } };
}

let world: World;
const KEY_VALUE = 'canary-provider-key-6612';

beforeAll(async () => {
  requireBuild();
  world = await makeWorld({
    registry: echoServer('notes', { tools: 'note' }),
    profile: profileToml('doc', 'lead', { lead: { grants: { notes: {} } } }),
  });
  await writeFile(
    join(world.configDir, 'codex-base.toml'),
    `model = "m"
modle = "typo"
model_provider = "local"

[model_providers.local]
name = "local"
base_url = "http://127.0.0.1:9/v1"
env_key = "LOCAL_MODEL_KEY"
wire_api = "responses"
`,
  );
});

describe('profile doctor: model side', () => {
  it('reports an unknown codex-base.toml key where it is, and a missing provider key', async () => {
    const result = await runInWorld(world, [
      'profile',
      'doctor',
      world.packDir,
      '--json',
      '--codex-bin',
      CODEX,
    ]);
    const out = JSON.parse(result.stdout) as DoctorJson;
    const unknown = out.diagnostics.filter((d) => d.code === 'codex-base-unknown-key');
    expect(unknown).toHaveLength(1);
    expect(unknown[0]).toMatchObject({ line: 2, column: 1, path: 'modle' });
    expect(unknown[0]?.message).toContain('did you mean "model"?');
    expect(out.diagnostics.map((d) => d.code)).toContain('model-provider-key-missing');
    expect(out.model).toMatchObject({
      provider: 'local',
      auth_json: true,
      env_key: { name: 'LOCAL_MODEL_KEY', present: false },
    });
    expect(result.code).toBe(1);
  });

  it('reports the key as present without printing it', async () => {
    const result = await runInWorld(
      world,
      ['profile', 'doctor', world.packDir, '--json', '--codex-bin', CODEX],
      { LOCAL_MODEL_KEY: KEY_VALUE },
    );
    const out = JSON.parse(result.stdout) as DoctorJson;
    expect(out.diagnostics.map((d) => d.code)).not.toContain('model-provider-key-missing');
    expect(out.model?.env_key).toEqual({ name: 'LOCAL_MODEL_KEY', present: true });
    expect(result.stdout + result.stderr).not.toContain(KEY_VALUE);
  });
});

describe('profile doctor: a value Codex rejects', () => {
  const CANARY = 'hunter2-canary-value-4471';
  it('reports codex-base-rejected without the value written in the file', async () => {
    const rejecting = await makeWorld({
      registry: echoServer('notes', { tools: 'note' }),
      profile: profileToml('doc', 'lead', { lead: { grants: { notes: {} } } }),
    });
    await writeFile(
      join(rejecting.configDir, 'codex-base.toml'),
      `model_verbosity = "${CANARY}"\n`,
    );
    const result = await runInWorld(rejecting, [
      'profile',
      'doctor',
      rejecting.packDir,
      '--json',
      '--codex-bin',
      CODEX,
    ]);
    const out = JSON.parse(result.stdout) as DoctorJson;
    const rejected = out.diagnostics.filter((d) => d.code === 'codex-base-rejected');
    expect(rejected, result.stdout).toHaveLength(1);
    // Codex names the bad value in backticks next to the accepted ones: those stay readable
    expect(rejected[0]?.message).toContain('`…`');
    expect(rejected[0]?.message).toMatch(/`(low|medium|high)`/);
    expect(result.stdout + result.stderr).not.toContain(CANARY);
    expect(result.code).toBe(1);
  });
});

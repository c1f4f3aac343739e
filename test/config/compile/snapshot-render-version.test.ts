/**
 * `snapshot render` shows what a session would launch: the files are rendered for the Codex that
 * would run them, so a `codex-base.toml` key that version rejects is left out, as at launch.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { TEST_CODEX_BIN, TEST_CODEX_SERIES } from '../../support/codex-bin.js';
import {
  echoServer,
  makeWorld,
  profileToml,
  requireBuild,
  runCliProcess,
  runInWorld,
} from '../../support/world.js';

describe('snapshot render for the Codex in use', () => {
  it(`renders for Codex ${TEST_CODEX_SERIES}`, async () => {
    const series = TEST_CODEX_SERIES;
    requireBuild();
    const world = await makeWorld({
      registry: echoServer('srv', { tools: 'note' }),
      profile: profileToml('versions', 'lead', { lead: { grants: { srv: {} } } }),
    });
    await writeFile(
      join(world.configDir, 'codex-base.toml'),
      'mcp_optional_startup_grace_ms = 500\n',
    );
    const compiled = await runInWorld(world, ['snapshot', 'compile', world.packDir, '--json']);
    expect(compiled.code, compiled.stderr).toBe(0);
    const { id } = JSON.parse(compiled.stdout) as { id: string };
    const dirs = world.dirArgs.slice(0, world.dirArgs.indexOf('--codex-bin'));
    const rendered = await runCliProcess(
      ['snapshot', 'render', id, '--json', ...dirs, '--codex-bin', TEST_CODEX_BIN],
      world.env,
      world.workDir,
    );
    expect(rendered.code, rendered.stderr).toBe(0);
    const config = (JSON.parse(rendered.stdout) as { files: Record<string, string> }).files[
      'config.toml'
    ];
    if (series === '0.149') expect(config).not.toContain('mcp_optional_startup_grace_ms');
    else expect(config).toContain('mcp_optional_startup_grace_ms = 500');
  }, 60_000);
});

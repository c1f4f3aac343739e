/**
 * `profile smoke` with Codex's MCP 2026-07-28 client turned on in codex-base.toml
 * (`[features] mcp_2026_07_28 = true`): Codex discovers each route first, and the gateway
 * answers it, so the roles receive their granted tools as with the feature off.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import type { SmokeReport } from '../../../src/features/smoke/smoke.js';
import { runCli } from '../../support/cli.js';
import {
  echoServer,
  makeWorld,
  profileToml,
  requireBuild,
  type World,
} from '../../support/world.js';

let world: World;

beforeAll(async () => {
  requireBuild();
  world = await makeWorld({
    registry: echoServer('files', { tools: 'read,write' }),
    profile: profileToml('revision-smoke', 'lead', { lead: { grants: { files: {} } } }),
  });
  await writeFile(join(world.configDir, 'codex-base.toml'), '[features]\nmcp_2026_07_28 = true\n');
});

describe('profile smoke with the mcp_2026_07_28 feature on', () => {
  it('reports the granted tools as received', async () => {
    const result = await runCli(['profile', 'smoke', world.packDir, '--json', ...world.dirArgs], {
      env: world.env,
      home: world.home,
      cwd: world.workDir,
    });
    const report = result.json<SmokeReport>();
    expect(report.ok, result.stdout + result.stderr).toBe(true);
    expect(report.roles.lead).toMatchObject({ received: { files: ['read', 'write'] } });
    expect(report.servers_failed).toEqual([]);
  });
});

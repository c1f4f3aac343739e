/**
 * `profile smoke` runs its Codex processes as a session does: through the session gateway. The
 * real server gets its credential; the process that started it is codex-mmo's gateway, not Codex,
 * whose environment and configuration hold no server credential — a relay stands in the server's
 * place in the rendered configuration.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import type { SmokeReport } from '../../../src/features/smoke/smoke.js';
import { containment } from '../../../src/foundation/process/containment.js';
import { runCli } from '../../support/cli.js';
import {
  echoServer,
  makeWorld,
  profileToml,
  requireBuild,
  type World,
} from '../../support/world.js';

const CANARY = 'smoke-gw-canary-3c1b2a';

let world: World;

beforeAll(async () => {
  requireBuild();
  world = await makeWorld({
    registry: (root) =>
      echoServer('files', {
        tools: 'read',
        envVars: ['FILES_KEY'],
        args: [
          '--record-env',
          join(root, 'server-env.json'),
          '--record-parent-env',
          join(root, 'parent-env.json'),
        ],
      }),
    profile: profileToml('gw-smoke', 'lead', { lead: { grants: { files: {} } } }),
    credentials: `FILES_KEY=${CANARY}\n`,
  });
});

describe('profile smoke through the gateway', () => {
  it('starts the server from the gateway with its credential; Codex never holds it', async () => {
    const result = await runCli(['profile', 'smoke', world.packDir, '--json', ...world.dirArgs], {
      env: world.env,
      home: world.home,
      cwd: world.workDir,
    });
    const report = result.json<SmokeReport>();
    expect(report.ok, result.stdout + result.stderr).toBe(true);
    expect(report.roles.lead).toMatchObject({ received: { files: ['read'] } });
    expect(report.servers_failed).toEqual([]);

    const server = JSON.parse(
      await readFile(join(world.root, 'server-env.json'), 'utf8'),
    ) as Record<string, string>;
    expect(server.FILES_KEY).toBe(CANARY);
    // started by the gateway: the parent is no Codex process (a Codex home of the smoke session),
    // and holds no credential of the server; contained, the server is its namespace's first
    // process, with no parent in its view (its `unshare` is checked in contained-spawn.test.ts)
    const parent = await readFile(join(world.root, 'parent-env.json'), 'utf8');
    expect(parent === '{"FIRST_PROCESS":"1"}').toBe(containment().available);
    expect(parent).not.toContain(CANARY);
    expect(parent).not.toContain('FILES_KEY');
    expect((JSON.parse(parent) as Record<string, string>).CODEX_HOME ?? '').not.toMatch(
      /codex-mmo-smoke-.*homes/,
    );
    expect(result.stdout + result.stderr).not.toContain(CANARY);
  }, 180_000);
});

/**
 * Acceptance by real Codex: every rendered home of the compile fixtures and of the example pack
 * passes `codex app-server --strict-config`, loads every role file, and `codex mcp list|get
 * --json` show exactly the servers, transports, variable names, timeouts, enabled flags and tool
 * filters the snapshot and plan call for (expectations derived from the snapshot, not the TOML).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { codexMcpGet, codexMcpList, strictConfigCheck } from '../../src/codex/codex-cli.js';
import { renderAll } from '../../src/compile/render-process.js';
import { writeRenderedHome } from '../../src/compile/write-home.js';
import { expandTilde } from '../../src/paths/directories.js';
import { tmpDir } from '../helpers/tmp.js';
import { CODEX_BIN, FIXTURES, REPO, loadFixture, type LoadedFixture } from './load-fixture.js';

const HOME = '/home/operator';
const ENV = { PATH: process.env.PATH, HOME: process.env.HOME };

function expectedTransport(fixture: LoadedFixture, id: string): Record<string, unknown> {
  const d = fixture.snapshot.servers[id]!;
  if (d.transport === 'stdio') {
    return {
      type: 'stdio',
      command: d.command.startsWith('~/') ? expandTilde(d.command, HOME) : d.command,
      args: d.args ?? [],
      env: d.env !== undefined && Object.keys(d.env).length > 0 ? d.env : null,
      env_vars: d.env_vars ?? [],
      cwd: d.cwd !== undefined ? expandTilde(d.cwd, HOME) : null,
    };
  }
  return {
    type: 'streamable_http',
    url: d.url,
    bearer_token_env_var: d.bearer_token_env_var ?? null,
    http_headers: d.http_headers ?? null,
    env_http_headers: d.env_http_headers ?? null,
    http_headers_helper: null,
  };
}

async function checkWithCodex(fixture: LoadedFixture): Promise<string[]> {
  const checked: string[] = [];
  for (const rendered of renderAll(fixture.snapshot, fixture.plan, { home: HOME })) {
    const dir = await tmpDir();
    await writeRenderedHome(rendered, dir);
    const process = fixture.plan.processes.find((p) => p.root === rendered.process)!;
    const root = fixture.plan.roles[process.root]!;

    const strict = await strictConfigCheck(CODEX_BIN, dir, ENV);
    expect(strict.output).not.toMatch(/malformed/i);
    expect(strict, strict.output).toMatchObject({ ok: true, exitCode: 0, malformedRoles: [] });

    const list = (await codexMcpList(CODEX_BIN, dir, ENV)) as Record<string, unknown>[];
    const names = [...process.servers, ...(process.mesh ? ['mmo_mesh'] : [])].sort();
    expect(list.map((s) => s.name).sort()).toEqual(names);
    for (const entry of list) {
      const id = entry.name as string;
      if (id === 'mmo_mesh') {
        expect(entry).toMatchObject({
          enabled:
            fixture.snapshot.profile.agents[process.root]!.spawn.length +
              fixture.snapshot.profile.agents[process.root]!.control.length >
            0,
          transport: { type: 'stdio', command: 'codex-mmo', env_vars: [] },
          tool_timeout_sec:
            root.mesh_tool_timeout_sec ??
            Math.max(
              ...process.roles
                .map((r) => fixture.plan.roles[r]!.mesh_tool_timeout_sec)
                .filter((t): t is number => t !== null),
            ),
        });
        continue;
      }
      const definition = fixture.snapshot.servers[id]!;
      expect(entry).toMatchObject({
        enabled: root.grants[id] !== undefined,
        transport: expectedTransport(fixture, id),
        startup_timeout_sec: definition.startup_timeout_sec ?? null,
        tool_timeout_sec: definition.tool_timeout_sec ?? null,
      });
      expect(entry.transport).toEqual(expectedTransport(fixture, id));
    }
    for (const id of process.servers) {
      const got = (await codexMcpGet(CODEX_BIN, dir, id, ENV)) as Record<string, unknown>;
      const operator = fixture.snapshot.servers[id]!.enabled_tools;
      const granted = root.grants[id]?.enabled_tools ?? [];
      expect(got.enabled_tools).toEqual(operator);
      expect(got.disabled_tools).toEqual(operator.filter((t) => !granted.includes(t)));
    }
    checked.push(`${rendered.process}:${[...rendered.files.keys()].join('+')}`);
  }
  return checked;
}

describe('rendered homes, checked by real Codex', () => {
  it('the team fixture: both processes, both transports, native roles, mmo_mesh', async () => {
    const fixture = await loadFixture(join(FIXTURES, 'team/config'), join(FIXTURES, 'team/pack'));
    expect(await checkWithCodex(fixture)).toEqual([
      'lead:config.toml+agents/reviewer.toml+agents/scribe.toml',
      'researcher:config.toml',
    ]);
  }, 60_000);

  it('the example pack with the example operator config', async () => {
    const fixture = await loadFixture(
      join(REPO, 'examples/config'),
      join(REPO, 'examples/packs/research'),
    );
    const checked = await checkWithCodex(fixture);
    expect(checked.length).toBe(fixture.plan.processes.length);
  }, 60_000);
});

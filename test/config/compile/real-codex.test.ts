/**
 * Acceptance by real Codex: every rendered home of the compile fixtures and of the example pack
 * (byte for byte the golden files under __golden__/, which are what Codex is given here) passes `codex app-server --strict-config`, loads every role file, and `codex mcp list|get
 * --json` show exactly the servers, transports, variable names, timeouts, enabled flags and tool
 * filters the snapshot and plan call for (expectations derived from the snapshot, not the TOML),
 * for the root config and for each role layer read on its own.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'smol-toml';
import { describe, expect, it } from 'vitest';

import {
  codexMcpGet,
  codexMcpList,
  strictConfigCheck,
} from '../../../src/runtime/codex/codex-cli.js';
import { processGrant, rolesNarrowedOnWire } from '../../../src/config/compile/process-grant.js';
import { renderAll } from '../../../src/config/compile/render-process.js';
import { writeRenderedHome } from '../../../src/config/compile/write-home.js';
import { expandTilde } from '../../../src/foundation/paths/directories.js';
import type { ResolvedProcess } from '../../../src/config/profile/types.js';
import { tmpDir } from '../../support/tmp.js';
import {
  CODEX_BIN,
  FIXTURES,
  REPO,
  loadFixture,
  type LoadedFixture,
} from '../../support/load-fixture.js';

const HOME = '/home/operator';
const GOLDEN = join(import.meta.dirname, '__golden__');
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

/**
 * `codex mcp list|get --json` on the home in `dir`, read as a config of `role` in `process`:
 * every server of the process with its transport and timeouts, enabled exactly when `role` is
 * granted it, the operator's enabled_tools and disabled_tools = operator list minus the grant;
 * mmo_mesh enabled exactly when `role` has spawn or control. With `union` (the process's own
 * config when the model wire narrows each role) the grant is what any role of the process has.
 */
async function checkServers(
  fixture: LoadedFixture,
  dir: string,
  process: ResolvedProcess,
  roleName: string,
  union = false,
): Promise<void> {
  const own = fixture.plan.roles[roleName]!;
  const role = union
    ? {
        ...own,
        grants: Object.fromEntries(
          process.servers.flatMap((id) => {
            const grant = processGrant(fixture.plan, process, id);
            return grant === undefined ? [] : [[id, grant]];
          }),
        ),
      }
    : own;
  const specs = (union ? process.roles : [roleName]).map(
    (name) => fixture.snapshot.profile.agents[name]!,
  );
  const spec = {
    spawn: specs.flatMap((s) => s.spawn),
    control: specs.flatMap((s) => s.control),
  };
  const list = (await codexMcpList(CODEX_BIN, dir, ENV)) as Record<string, unknown>[];
  const names = [...process.servers, ...(process.mesh ? ['mmo_mesh'] : [])].sort();
  expect(list.map((s) => s.name).sort()).toEqual(names);
  for (const entry of list) {
    const id = entry.name as string;
    if (id === 'mmo_mesh') {
      const root = fixture.plan.roles[process.root]!;
      expect(entry).toMatchObject({
        enabled: spec.spawn.length + spec.control.length > 0,
        transport: { type: 'stdio', command: 'codex-mmo', env_vars: ['CODEX_MMO_MESH_TOKEN'] },
        tool_timeout_sec:
          role.mesh_tool_timeout_sec ??
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
      enabled: role.grants[id] !== undefined,
      transport: expectedTransport(fixture, id),
      startup_timeout_sec: definition.startup_timeout_sec ?? null,
      tool_timeout_sec: definition.tool_timeout_sec ?? null,
    });
    expect(entry.transport).toEqual(expectedTransport(fixture, id));
  }
  for (const id of process.servers) {
    const got = (await codexMcpGet(CODEX_BIN, dir, id, ENV)) as Record<string, unknown>;
    const operator = fixture.snapshot.servers[id]!.enabled_tools;
    const granted = role.grants[id]?.enabled_tools ?? [];
    expect(got.enabled_tools).toEqual(operator);
    expect(got.disabled_tools).toEqual(operator.filter((t) => !granted.includes(t)));
  }
}

/** The recorded golden files of one process (test/config/compile/__golden__/NAME/PROCESS/). */
async function goldenHome(name: string, process: string): Promise<Map<string, string>> {
  const dir = join(GOLDEN, name, process);
  const files = new Map<string, string>();
  for (const rel of (await readdir(dir, { recursive: true })).sort()) {
    if (rel.endsWith('.toml'))
      files.set(rel.split('\\').join('/'), await readFile(join(dir, rel), 'utf8'));
  }
  return files;
}

/**
 * Renders every process of the fixture, checks that the rendering is byte for byte the recorded
 * golden files, and has real Codex load those files.
 */
async function checkWithCodex(fixture: LoadedFixture, golden: string): Promise<string[]> {
  const checked: string[] = [];
  for (const rendered of renderAll(fixture.snapshot, fixture.plan, { home: HOME })) {
    const recorded = await goldenHome(golden, rendered.process);
    expect(new Map([...rendered.files].sort(([a], [b]) => (a < b ? -1 : 1)))).toEqual(recorded);
    const dir = await tmpDir();
    await writeRenderedHome({ process: rendered.process, files: recorded }, dir);
    const process = fixture.plan.processes.find((p) => p.root === rendered.process)!;

    const strict = await strictConfigCheck(CODEX_BIN, dir, ENV);
    expect(strict.output).not.toMatch(/malformed/i);
    expect(strict, strict.output).toMatchObject({ ok: true, exitCode: 0, malformedRoles: [] });
    await checkServers(
      fixture,
      dir,
      process,
      process.root,
      rolesNarrowedOnWire(fixture.snapshot.base),
    );

    // Each role layer, read by Codex on its own as a config (minus the two keys only a role
    // file may hold): it restates every server with that role's enabled flag and filters, the
    // values that replace the root's when Codex merges the layer (measured on both versions).
    for (const name of process.roles.filter((r) => r !== process.root)) {
      const layer = parse(rendered.files.get(`agents/${name}.toml`)!);
      expect(layer).toMatchObject({ name, description: expect.any(String) as string });
      delete layer.name;
      delete layer.description;
      const scratch = await tmpDir();
      await writeFile(join(scratch, 'config.toml'), stringify(layer));
      const alone = await strictConfigCheck(CODEX_BIN, scratch, ENV);
      expect(alone, alone.output).toMatchObject({ ok: true, exitCode: 0 });
      await checkServers(fixture, scratch, process, name);
    }
    checked.push(`${rendered.process}:${[...rendered.files.keys()].join('+')}`);
  }
  return checked;
}

describe('rendered homes, checked by real Codex', () => {
  it('the team fixture: both processes, both transports, native roles, mmo_mesh', async () => {
    const fixture = await loadFixture(join(FIXTURES, 'team/config'), join(FIXTURES, 'team/pack'));
    expect(await checkWithCodex(fixture, 'team')).toEqual([
      'lead:config.toml+agents/reviewer.toml+agents/scribe.toml',
      'researcher:config.toml',
    ]);
  }, 60_000);

  it('the example pack with the example operator config', async () => {
    const fixture = await loadFixture(
      join(REPO, 'examples/config'),
      join(REPO, 'examples/packs/research'),
    );
    const checked = await checkWithCodex(fixture, 'research');
    expect(checked.length).toBe(fixture.plan.processes.length);
  }, 60_000);
});

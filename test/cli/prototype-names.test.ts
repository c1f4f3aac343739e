/**
 * Operator-chosen names that are also members of `Object.prototype` (`constructor`, `toString`,
 * `hasOwnProperty`, `__proto__`) are ordinary names: a server `constructor` validates, pins,
 * compiles and is doctored like any other, with tools of those names; invalid IDs of those names
 * are reported, never crash a command.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { runCli } from '../support/cli.js';
import { customWorkspace } from '../support/config.js';

const SERVER = join(import.meta.dirname, '..', 'fixtures', 'servers', 'echo-server.mjs');
const TOOLS = ['constructor', 'toString', 'hasOwnProperty', '__proto__'];
const STACK_TRACE = /^\s+at .+:\d+/m;

const fragment = `schema_version = 8

[tool_mcp_servers.constructor]
transport = "stdio"
command = "${process.execPath}"
args = ["${SERVER}", "--tools", "${TOOLS.join(',')}"]
enabled_tools = ${JSON.stringify(TOOLS)}
default_tools_approval_mode = "prompt"

[tool_mcp_servers.constructor.tools.toString]
approval_mode = "auto"
`;

const profile = `schema_version = 8
name = "proto"
description = "prototype names"
root = "lead"

[agents.lead]
description = "lead"
instructions = "lead"

[agents.lead.tool_mcp_servers.constructor]
enabled_tools = ["constructor", "__proto__"]
`;

describe('a server named constructor', () => {
  it('is not pinned until pinned, then pins, compiles and is doctored as pinned', async () => {
    const ws = await customWorkspace({ '10-proto.toml': fragment }, profile);
    const env = { PATH: process.env.PATH ?? '' };
    const dirs = ['--config-dir', ws.dirs.configDir, '--data-dir', ws.dirs.dataDir];
    const cli = (args: string[]) => runCli([...args, ...dirs], { env });

    const validate = await cli(['tool-mcp', 'validate', 'constructor', '--json']);
    expect(validate.stdout + validate.stderr).not.toMatch(STACK_TRACE);
    expect(validate.json<{ ok: boolean }>().ok).toBe(true);

    const before = await cli(['profile', 'doctor', ws.pack, '--json']);
    const doctorBefore = before.json<{
      servers: { id: string; pinned: boolean }[];
      diagnostics: { code: string }[];
    }>();
    expect(doctorBefore.servers).toEqual([
      expect.objectContaining({ id: 'constructor', pinned: false }),
    ]);
    expect(doctorBefore.diagnostics.map((d) => d.code)).toContain('server-not-pinned');

    const compileBefore = await cli(['snapshot', 'compile', ws.pack, '--json']);
    expect(compileBefore.stderr).not.toMatch(/is not a function/);
    expect(compileBefore.code, compileBefore.stderr).toBe(0);

    const pin = await cli(['tool-mcp', 'pin', 'constructor', '--json']);
    expect(pin.code, pin.stdout + pin.stderr).toBe(0);
    const probe = await cli(['tool-mcp', 'probe', 'constructor', '--json']);
    expect(probe.code, probe.stdout + probe.stderr).toBe(0);
    const codes = probe.json<{ diagnostics: { code: string }[] }>().diagnostics.map((d) => d.code);
    expect(codes).not.toContain('tool-not-pinned');
    expect(codes).not.toContain('tool-drift');

    const after = await cli(['profile', 'doctor', ws.pack, '--json']);
    expect(after.json<{ servers: { pinned: boolean }[] }>().servers[0]?.pinned).toBe(true);
    const compiled = await cli(['snapshot', 'compile', ws.pack, '--json']);
    expect(compiled.code, compiled.stderr).toBe(0);
    const id = compiled.json<{ id: string }>().id;
    const shown = await cli(['snapshot', 'show', id, '--json']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('"constructor"');
  }, 60_000);

  it('does not find a member of Object.prototype for an unpinned server or a pin of another', async () => {
    const other = fragment
      .replaceAll('constructor]', 'other]')
      .replaceAll('constructor.tools', 'other.tools');
    const ws = await customWorkspace(
      { '10-proto.toml': fragment, '20-other.toml': other },
      profile,
    );
    const env = { PATH: process.env.PATH ?? '' };
    const dirs = ['--config-dir', ws.dirs.configDir, '--data-dir', ws.dirs.dataDir];
    const pin = await runCli(['tool-mcp', 'pin', 'other', ...dirs], { env });
    expect(pin.code, pin.stderr).toBe(0);
    const doctor = await runCli(['profile', 'doctor', ws.pack, '--json', ...dirs], { env });
    expect(doctor.json<{ servers: { id: string; pinned: boolean }[] }>().servers).toEqual([
      expect.objectContaining({ id: 'constructor', pinned: false }),
    ]);
  }, 60_000);

  it('IDs toString, hasOwnProperty and __proto__ are invalid IDs, reported without a crash', async () => {
    const text = ['toString', 'hasOwnProperty', '__proto__', 'valueOf']
      .map(
        (id) => `[tool_mcp_servers.${id}]
transport = "stdio"
command = "node"
enabled_tools = ["a"]
default_tools_approval_mode = "auto"
`,
      )
      .join('\n');
    const ws = await customWorkspace({ '10-bad.toml': `schema_version = 8\n\n${text}` }, profile);
    for (const command of [
      ['validate'],
      ['list'],
      ['show', 'toString'],
      ['show', '__proto__'],
      ['show', 'constructor'],
      ['pin', 'hasOwnProperty'],
    ]) {
      const r = await runCli(['tool-mcp', ...command, '--json', '--config-dir', ws.dirs.configDir]);
      expect(r.code, command.join(' ')).toBe(1);
      expect(r.stdout + r.stderr).not.toMatch(STACK_TRACE);
      const codes = r.json<{ diagnostics: { code: string }[] }>().diagnostics.map((d) => d.code);
      expect(
        codes.filter((c) => c === 'invalid-server-id').length +
          codes.filter((c) => c === 'unknown-server').length,
      ).toBeGreaterThan(0);
    }
  });
});

/**
 * `list`, `show` and `validate` inspect configuration without starting any server: every server
 * here is a script that would leave a marker file if anything ran it.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { runCli } from '../support/cli.js';
import { tmpDir } from '../support/tmp.js';

describe('inspection launches nothing', () => {
  it('leaves no marker for list, show and validate in text and JSON form', async () => {
    const base = await tmpDir();
    const markers = join(base, 'markers');
    const bin = join(base, 'bin');
    const dir = join(base, 'config');
    await mkdir(markers);
    await mkdir(bin);
    await mkdir(join(dir, 'tool-mcp.d'), { recursive: true });
    const script = (name: string): string =>
      `#!/bin/sh\necho started > '${join(markers, name)}'\nexit 0\n`;
    await writeFile(join(bin, 'bare-server'), script('bare'));
    await writeFile(join(bin, 'abs-server'), script('abs'));
    await chmod(join(bin, 'bare-server'), 0o755);
    await chmod(join(bin, 'abs-server'), 0o755);
    await writeFile(
      join(dir, 'tool-mcp.d', '10-servers.toml'),
      `schema_version = 8

[tool_mcp_servers.bare]
transport = "stdio"
command = "bare-server"
args = ["stdio"]
cwd = "${base}"
enabled_tools = ["echo"]
default_tools_approval_mode = "auto"

[tool_mcp_servers.absolute]
transport = "stdio"
command = "${join(bin, 'abs-server')}"
enabled_tools = ["echo"]
default_tools_approval_mode = "auto"
`,
    );
    const env = { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: base };
    const commands = [
      ['tool-mcp', 'list'],
      ['tool-mcp', 'show', 'bare'],
      ['tool-mcp', 'show', 'absolute'],
      ['tool-mcp', 'validate'],
      ['tool-mcp', 'validate', 'bare'],
      ['tool-mcp', 'validate', 'absolute'],
    ];
    for (const command of commands) {
      for (const form of [[], ['--json']]) {
        const r = await runCli([...command, ...form, '--config-dir', dir], { env, home: base });
        expect(r.code, `${command.join(' ')} ${form.join(' ')}: ${r.stderr}`).toBe(0);
      }
    }
    // both commands resolved (so readiness looked at them) ...
    const show = await runCli(['tool-mcp', 'show', 'bare', '--json', '--config-dir', dir], {
      env,
      home: base,
    });
    expect(
      show.json<{ readiness: { command: { resolved: string } } }>().readiness.command.resolved,
    ).toBe(join(bin, 'bare-server'));
    // ... and none ran
    expect(await readdir(markers)).toEqual([]);
    // the marker mechanism works: running a server does leave its marker
    execFileSync(join(bin, 'abs-server'));
    expect(await readdir(markers)).toEqual(['abs']);
  });
});

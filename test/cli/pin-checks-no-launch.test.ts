/**
 * The pin is checked offline: after a server is pinned, a changed definition and a typo in
 * enabled_tools are reported by `tool-mcp validate`, `profile doctor`, `snapshot compile` and
 * `exec` — which refuses to start — without any server process: the server is a script that would
 * leave a marker if anything ran it. A grant naming the real tool is not blamed for the typo.
 */
import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { definitionIdentity, identityDigest } from '../../src/config/lock/definition-identity.js';
import { renderLock } from '../../src/config/lock/lock-format.js';
import { buildRegistry } from '../../src/config/registry/build-registry.js';
import { TEST_CODEX_BIN } from '../support/codex-bin.js';
import { runCli } from '../support/cli.js';
import { tmpDir } from '../support/tmp.js';

interface Report {
  ok: boolean;
  diagnostics: { code: string; severity: string; message: string; path?: string }[];
  servers?: { id: string; pinned: boolean; drifted: boolean }[];
}

const fragment = (command: string, root: string, tools: string): string => `schema_version = 8

[tool_mcp_servers.fs]
transport = "stdio"
command = "${command}"
args = ["${root}"]
enabled_tools = [${tools}]
default_tools_approval_mode = "prompt"
`;

describe('pins checked without starting a server', () => {
  it('reports definition drift and a typo against the pin in validate, doctor, compile and exec', async () => {
    const base = await tmpDir();
    const markers = join(base, 'markers');
    const bin = join(base, 'bin');
    const config = join(base, 'config');
    const pack = join(base, 'pack');
    for (const dir of [markers, bin, join(config, 'tool-mcp.d'), pack]) {
      await mkdir(dir, { recursive: true });
    }
    const server = join(bin, 'fs-server');
    await writeFile(server, `#!/bin/sh\necho started > '${join(markers, 'fs')}'\nexit 0\n`);
    await chmod(server, 0o755);
    const file = join(config, 'tool-mcp.d', '10-fs.toml');

    // pinned with a scratch root and the real tool names
    const pinned = fragment(server, '/tmp/scratch', '"read_file", "get-sum"');
    const definition = buildRegistry([
      { file, bytes: new TextEncoder().encode(pinned) },
    ]).servers.get('fs')?.definition;
    if (definition === undefined) throw new Error('fixture fragment is invalid');
    const identity = definitionIdentity(definition, server);
    await writeFile(
      join(config, 'tool-mcp.lock'),
      renderLock({
        servers: {
          fs: {
            server: 'fs',
            transport: 'stdio',
            serverName: 'secure-filesystem-server',
            serverVersion: '0.6.3',
            definitionDigest: identityDigest(identity),
            definition: identity,
            offeredTools: ['get-sum', 'read_file', 'write_file'],
            tools: [
              { name: 'get-sum', digest: `sha256:${'1'.repeat(64)}` },
              { name: 'read_file', digest: `sha256:${'2'.repeat(64)}` },
            ],
          },
        },
      }),
    );
    // now: the whole file system, and a typo in the operator's list
    await writeFile(file, fragment(server, '/', '"read_file", "get_sum"'));
    await writeFile(
      join(pack, 'profile.toml'),
      `schema_version = 8
name = "files"
root = "lead"

[agents.lead]
description = "Reads files"
instructions = "Read the files you are asked about."

[agents.lead.tool_mcp_servers.fs]
enabled_tools = ["get-sum"]
`,
    );
    const env = { PATH: process.env.PATH ?? '', HOME: base };
    const dirs = [
      '--config-dir',
      config,
      '--data-dir',
      join(base, 'data'),
      '--state-dir',
      join(base, 'state'),
      '--codex-bin',
      TEST_CODEX_BIN,
    ];
    const cli = (args: string[]) => runCli([...args, ...dirs], { env, home: base, cwd: base });

    const validate = await cli(['tool-mcp', 'validate', '--json']);
    expect(validate.code).toBe(1);
    const found = validate.json<Report>().diagnostics;
    const drift = found.find((d) => d.code === 'definition-drift');
    expect(drift?.message).toContain('args ["/tmp/scratch"] → ["/"]');
    const typo = found.find((d) => d.code === 'tool-not-in-pin');
    expect(typo?.path).toBe('tool_mcp_servers.fs.enabled_tools[1]');
    expect(typo?.message).toContain("Did you mean 'get-sum'?");

    const doctor = await cli(['profile', 'doctor', pack, '--json']);
    expect(doctor.code).toBe(1);
    const report = doctor.json<Report>();
    expect(report.diagnostics.map((d) => d.code)).toContain('definition-drift');
    expect(report.servers?.[0]).toMatchObject({ id: 'fs', pinned: true, drifted: true });
    const grant = report.diagnostics.find((d) => d.code === 'tool-not-allowed');
    expect(grant?.message).toContain('`get-sum` is offered by `fs` (pinned in tool-mcp.lock)');
    expect(grant?.message).toContain('`get_sum`, which the pinned server does not offer');
    expect(grant?.message).not.toMatch(/did you mean/i);
    const text = await cli(['profile', 'doctor', pack]);
    expect(text.stdout).toMatch(/^fs\s+stdio\s+yes\s+lead\s+\S.*CHANGED/m);

    // with the typo fixed, the changed definition alone still stops compile and exec
    await writeFile(file, fragment(server, '/', '"read_file", "get-sum"'));
    const compile = await cli(['snapshot', 'compile', pack, '--json']);
    expect(compile.code).toBe(1);
    expect(compile.stdout).toContain('definition-drift');
    const exec = await cli(['exec', pack, 'hello']);
    expect(exec.code).toBe(1);
    expect(exec.stderr).toContain('error[definition-drift]');
    expect(await readdir(join(base, 'data')).catch(() => [])).not.toContain('snapshots');

    // nothing was started by any of them
    expect(await readdir(markers)).toEqual([]);
  });
});

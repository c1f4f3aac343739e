/**
 * The real Codex binary as a configuration oracle: strict-config checks (including role files Codex
 * drops as malformed) and `codex mcp list|get --json`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import {
  codexMcpGet,
  codexMcpList,
  strictConfigCheck,
  stripAnsi,
} from '../../../src/runtime/codex/codex-cli.js';
import { ProcessError } from '../../../src/foundation/errors.js';
import { CODEX_BIN } from '../../support/load-fixture.js';
import { tmpDir } from '../../support/tmp.js';

const ENV = { PATH: process.env.PATH, HOME: process.env.HOME };

const VALID = `model = "m"
[mcp_servers.alpha]
command = "/usr/bin/true"
env_vars = ["ALPHA_TOKEN"]
enabled_tools = ["a", "b"]
disabled_tools = ["b"]
startup_timeout_sec = 12
`;

async function home(config: string, roles: Record<string, string> = {}): Promise<string> {
  const dir = await tmpDir();
  await writeFile(join(dir, 'config.toml'), config);
  if (Object.keys(roles).length > 0) await mkdir(join(dir, 'agents'));
  for (const [name, text] of Object.entries(roles)) {
    await writeFile(join(dir, 'agents', `${name}.toml`), text);
  }
  return dir;
}

describe('strictConfigCheck (real Codex)', () => {
  it('passes a valid home', async () => {
    const result = await strictConfigCheck(CODEX_BIN, await home(VALID), ENV);
    expect(result).toMatchObject({ ok: true, exitCode: 0, malformedRoles: [] });
  });

  it('fails an unknown key with Codex’s file:line:col message', async () => {
    const dir = await home(`${VALID}bogus_field = 1\n`);
    const result = await strictConfigCheck(CODEX_BIN, dir, ENV);
    expect(result.ok).toBe(false);
    expect(result.exitCode).toBe(1);
    expect(result.output).toContain(
      `${join(dir, 'config.toml')}:8:1: unknown configuration field \`mcp_servers.alpha.bogus_field\``,
    );
  });

  it('fails when Codex drops a role file as malformed, though Codex itself exits 0', async () => {
    const dir = await home(
      `${VALID}[agents.rev]\ndescription = "r"\nconfig_file = "agents/rev.toml"\n`,
      {
        rev: 'name = "rev"\ndescription = "r"\ndeveloper_instructions = "x"\n[mcp_servers.alpha]\nenabled = false\n',
      },
    );
    const result = await strictConfigCheck(CODEX_BIN, dir, ENV);
    expect(result.exitCode).toBe(0);
    expect(result.ok).toBe(false);
    expect(result.malformedRoles).toHaveLength(1);
    expect(result.malformedRoles[0]).toMatch(/invalid transport/);
  });

  it('reports a missing binary as a ProcessError', async () => {
    await expect(
      strictConfigCheck('/nonexistent/codex', await home(VALID), ENV),
    ).rejects.toBeInstanceOf(ProcessError);
  });
});

describe('codexMcpList / codexMcpGet (real Codex)', () => {
  it('prints the servers as Codex parsed them', async () => {
    const dir = await home(VALID);
    const list = (await codexMcpList(CODEX_BIN, dir, ENV)) as Record<string, unknown>[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      name: 'alpha',
      enabled: true,
      transport: { type: 'stdio', command: '/usr/bin/true', env_vars: ['ALPHA_TOKEN'] },
      startup_timeout_sec: 12,
    });
    expect(await codexMcpGet(CODEX_BIN, dir, 'alpha', ENV)).toMatchObject({
      enabled_tools: ['a', 'b'],
      disabled_tools: ['b'],
    });
    await expect(codexMcpGet(CODEX_BIN, dir, 'nope', ENV)).rejects.toBeInstanceOf(ProcessError);
  });
});

describe('stripAnsi', () => {
  it('removes colour codes', () => {
    expect(stripAnsi('\u001b[2m2026\u001b[0m \u001b[31mERROR\u001b[0m x')).toBe('2026 ERROR x');
  });
});

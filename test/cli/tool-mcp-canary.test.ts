/**
 * No credential value ever reaches output: secret values are planted in credentials.env, in the
 * launch environment and in literals the registry rejects, then every tool-mcp command runs in
 * text and JSON form and no output may contain any of them.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { runCli } from '../support/cli.js';
import { tmpDir } from '../support/tmp.js';

const MARK = 'Qz7canary';
/** Token-shaped, so that the registry recognises them as credentials by value. */
const planted = {
  fileToken: `sk-${MARK}FileToken0123456789`,
  fileOther: `${MARK}-file-plain-value`,
  envToken: `ghp_${MARK}EnvToken0123456789abcdef`,
  envUnrelated: `${MARK}-env-unrelated`,
  envOverridesFile: `${MARK}-env-wins`,
  literalEnv: `${MARK}-literal-env-by-name`,
  literalHeader: `Bearer ${MARK}LiteralHeader0123`,
  literalBearer: `${MARK}-plaintext-bearer`,
  literalArg: `sk-${MARK}LiteralArg0123456789`,
  urlUser: `${MARK}urlpassword`,
  urlQuery: `${MARK}urlquerytoken`,
  valueShaped: `xoxb-${MARK}-1234567890-abcdef`,
};

async function canaryConfig(): Promise<string> {
  const dir = join(await tmpDir(), 'config');
  const d = join(dir, 'tool-mcp.d');
  await mkdir(d, { recursive: true });
  await writeFile(
    join(d, '10-valid.toml'),
    `schema_version = 8

[tool_mcp_servers.stdio-ok]
transport = "stdio"
command = "node"
env_vars = ["FILE_TOKEN", "ENV_TOKEN", "OVERRIDDEN", "ABSENT_VAR"]
enabled_tools = ["echo"]
default_tools_approval_mode = "writes"

[tool_mcp_servers.http-ok]
transport = "streamable_http"
url = "https://mcp.example.com/mcp"
bearer_token_env_var = "FILE_TOKEN"
env_http_headers = { "X-Other" = "FILE_OTHER", "X-Env" = "ENV_TOKEN" }
enabled_tools = ["search"]
default_tools_approval_mode = "auto"
`,
  );
  await writeFile(
    join(d, '20-rejected.toml'),
    `schema_version = 8

[tool_mcp_servers.env-literal]
transport = "stdio"
command = "node"
args = ["--key", "${planted.literalArg}"]
enabled_tools = ["echo"]
default_tools_approval_mode = "auto"
env = { SERVICE_API_TOKEN = "${planted.literalEnv}", HARMLESS = "${planted.valueShaped}" }

[tool_mcp_servers.header-literal]
transport = "streamable_http"
url = "https://mcp.example.com/"
bearer_token = "${planted.literalBearer}"
http_headers = { Authorization = "${planted.literalHeader}" }
enabled_tools = ["search"]
default_tools_approval_mode = "auto"

[tool_mcp_servers.url-secret]
transport = "streamable_http"
url = "https://user:${planted.urlUser}@mcp.example.com/?token=${planted.urlQuery}"
enabled_tools = ["search"]
default_tools_approval_mode = "auto"

[tool_mcp_servers.misplaced]
transport = "stdio"
command = "node"
env_vars = ["${planted.valueShaped}"]
bearer_token_env_var = "${planted.fileToken}"
enabled_tools = ["echo"]
default_tools_approval_mode = "auto"
`,
  );
  const credentials = join(dir, 'credentials.env');
  await writeFile(
    credentials,
    `FILE_TOKEN=${planted.fileToken}\nFILE_OTHER="${planted.fileOther}"\nOVERRIDDEN=${MARK}-file-loses\n`,
  );
  // group-readable on purpose: the permission warning must not leak anything either
  await chmod(credentials, 0o644);
  return dir;
}

describe('no credential value in any output', () => {
  it('holds for every tool-mcp command in text and JSON form', async () => {
    const dir = await canaryConfig();
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: '/nonexistent-home',
      ENV_TOKEN: planted.envToken,
      UNRELATED_SECRET: planted.envUnrelated,
      OVERRIDDEN: planted.envOverridesFile,
    };
    const ids = ['stdio-ok', 'http-ok', 'env-literal', 'header-literal', 'url-secret', 'misplaced'];
    const commands: string[][] = [
      ['tool-mcp', 'list'],
      ['tool-mcp', 'validate'],
      ['tool-mcp', 'schema'],
      ['tool-mcp', 'show', 'no-such-server'],
      ['tool-mcp', 'show', MARK],
      ...ids.flatMap((id) => [
        ['tool-mcp', 'show', id],
        ['tool-mcp', 'validate', id],
      ]),
    ];
    let outputs = '';
    let ran = 0;
    for (const command of commands) {
      for (const form of [[], ['--json']]) {
        const r = await runCli([...command, ...form, '--config-dir', dir], { env });
        ran++;
        const output = r.stdout + r.stderr;
        for (const [name, value] of Object.entries(planted)) {
          expect(output, `${command.join(' ')} ${form.join(' ')} leaked ${name}`).not.toContain(
            value,
          );
        }
        // the marker itself appears only where the operator typed it as an ID
        if (!command.includes(MARK)) {
          expect(output, `${command.join(' ')} ${form.join(' ')}`).not.toContain(MARK);
        }
        outputs += output;
      }
    }
    expect(ran).toBe(commands.length * 2);
    // the commands really did look at the planted material
    for (const code of [
      'credential-literal-name',
      'credential-literal-value',
      'plaintext-bearer-token',
      'url-userinfo',
      'url-credential',
      'credentials-file-permissions',
      'missing-env-var',
    ]) {
      expect(outputs).toContain(code);
    }
    expect(outputs).toMatch(/FILE_TOKEN\s+present \(credentials\.env\)/);
    expect(outputs).toMatch(/ENV_TOKEN\s+present \(environment\)/);
    expect(outputs).toMatch(/OVERRIDDEN\s+present \(environment\)/);
    expect(outputs).toMatch(/ABSENT_VAR\s+MISSING/);
  });
});

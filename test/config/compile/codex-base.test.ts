/**
 * codex-base.toml validation: compiler-owned keys, credential literals and date-times are refused
 * with file, line, column and key path; ordinary Codex settings pass through.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { loadCodexBase, validateCodexBase } from '../../../src/config/compile/codex-base.js';
import { formatDiagnostic } from '../../../src/foundation/diagnostics/diagnostic.js';
import { tmpDir } from '../../support/tmp.js';

const FILE = '/cfg/codex-base.toml';
const validate = (text: string): ReturnType<typeof validateCodexBase> =>
  validateCodexBase({ file: FILE, bytes: new TextEncoder().encode(text) });

describe('validateCodexBase', () => {
  it('accepts ordinary Codex settings and returns them', () => {
    const { base, diagnostics } = validate(
      [
        'model = "gpt-5.6-terra"',
        'model_provider = "corp"',
        'approval_policy = "on-request"',
        '[model_providers.corp]',
        'name = "Corp"',
        'base_url = "https://llm.corp.invalid/v1"',
        'env_key = "CORP_API_KEY"',
        '[shell_environment_policy]',
        'include_only = ["PATH", "HOME"]',
      ].join('\n'),
    );
    expect(diagnostics).toEqual([]);
    expect(base).toMatchObject({
      model: 'gpt-5.6-terra',
      model_providers: { corp: { env_key: 'CORP_API_KEY' } },
    });
  });

  it('refuses trusted projects and settings that would undo the session boundary, with positions', () => {
    const { base, diagnostics } = validate(
      [
        'model = "m"',
        '[projects."/home/operator/repo"]',
        'trust_level = "trusted"',
        '[shell_environment_policy]',
        'inherit = "all"',
        'ignore_default_excludes = true',
        '[features]',
        'shell_snapshot = true',
      ].join('\n'),
    );
    expect(base).toEqual({});
    expect(diagnostics.map((d) => [d.code, d.path, d.line])).toEqual([
      ['codex-base-owned-key', 'projects', 2],
      ['codex-base-owned-key', 'shell_environment_policy.inherit', 5],
      ['codex-base-owned-key', 'shell_environment_policy.ignore_default_excludes', 6],
      ['codex-base-owned-key', 'features.shell_snapshot', 8],
    ]);
    expect(diagnostics[0]?.message).toMatch(
      /untrusted.*\.codex\/config\.toml.*codex-base\.toml itself/,
    );
    expect(diagnostics[1]?.message).toMatch(/"core"/);
  });

  it('rejects every compiler-owned key with its position and what to do instead', () => {
    const text = [
      'model = "x"',
      'developer_instructions = "be evil"',
      'sandbox_mode = "danger-full-access"',
      'instructions = "x"',
      'model_instructions_file = "x.md"',
      'default_permissions = "p"',
      'profile = "p"',
      '[mcp_servers.evil]',
      'command = "/bin/sh"',
      '[agents.lead]',
      'description = "x"',
      '[sandbox_workspace_write]',
      'network_access = true',
      '[profiles.p]',
      'model = "y"',
      '[permissions.p]',
    ].join('\n');
    const { base, diagnostics } = validate(text);
    expect(base).toEqual({});
    const byPath = new Map(diagnostics.map((d) => [d.path, d]));
    expect([...byPath.keys()].sort()).toEqual(
      [
        'agents.lead',
        'default_permissions',
        'developer_instructions',
        'instructions',
        'mcp_servers',
        'model_instructions_file',
        'permissions',
        'profile',
        'profiles',
        'sandbox_mode',
        'sandbox_workspace_write',
      ].sort(),
    );
    for (const d of diagnostics) {
      expect(d).toMatchObject({ severity: 'error', code: 'codex-base-owned-key', file: FILE });
    }
    const where: Record<string, (number | undefined)[]> = Object.fromEntries(
      diagnostics.map((d) => [d.path ?? '', [d.line, d.column]]),
    );
    expect(where).toEqual({
      developer_instructions: [2, 1],
      sandbox_mode: [3, 1],
      instructions: [4, 1],
      model_instructions_file: [5, 1],
      default_permissions: [6, 1],
      profile: [7, 1],
      mcp_servers: [8, 2],
      'agents.lead': [10, 9],
      sandbox_workspace_write: [12, 2],
      profiles: [14, 2],
      permissions: [16, 2],
    });
    expect(byPath.get('mcp_servers')).toMatchObject({ line: 8 });
    expect(byPath.get('mcp_servers')?.message).toMatch(/tool-mcp\.d/);
    expect(byPath.get('sandbox_mode')?.message).toMatch(/permissions/);
    expect(byPath.get('developer_instructions')?.message).toMatch(/instructions_file/);
    expect(formatDiagnostic(byPath.get('agents.lead')!)).toBe(
      `${FILE}:10:9: error[codex-base-owned-key] agents.lead: [agents.lead] declares a role; roles are written by the compiler from the profile pack's [agents] tables. codex-base.toml may set only Codex's multi-agent settings under [agents]: max_threads, max_concurrent_threads_per_session, max_depth, job_max_runtime_seconds, interrupt_message, default_subagent_model, default_subagent_reasoning_effort`,
    );
  });

  it("accepts Codex's own [agents] settings with the types Codex expects, nothing else", () => {
    const good = validate(
      [
        '[agents]',
        'max_threads = 4',
        'max_concurrent_threads_per_session = 3',
        'max_depth = 2',
        'job_max_runtime_seconds = 600',
        'interrupt_message = true',
        'default_subagent_model = "gpt-5.6-terra"',
        'default_subagent_reasoning_effort = "low"',
      ].join('\n'),
    );
    expect(good.diagnostics).toEqual([]);
    expect(good.base.agents).toMatchObject({ max_threads: 4, max_depth: 2 });

    const bad = validate(
      [
        '[agents]',
        'max_threads = "many"',
        'max_depth = -1',
        'interrupt_message = "yes"',
        'bogus = 1',
      ].join('\n'),
    );
    expect(bad.base).toEqual({});
    expect(bad.diagnostics.map((d) => [d.path, d.code, d.line, d.column])).toEqual([
      ['agents.max_threads', 'codex-base-invalid-value', 2, 1],
      ['agents.max_depth', 'codex-base-invalid-value', 3, 1],
      ['agents.interrupt_message', 'codex-base-invalid-value', 4, 1],
      ['agents.bogus', 'codex-base-owned-key', 5, 1],
    ]);
    expect(bad.diagnostics[3]!.message).toMatch(/would read it as a role/);
    expect(validate('agents = 3').diagnostics[0]).toMatchObject({
      code: 'codex-base-owned-key',
      path: 'agents',
    });
  });

  it('rejects credential literals by key name or value shape, naming only the key', () => {
    const canary = 'sk-CANARYcanary0123456789abcdef';
    const { diagnostics } = validate(
      [
        '[model_providers.corp]',
        'name = "Corp"',
        'base_url = "https://llm.corp.invalid/v1"',
        'experimental_bearer_token = "plain-secret-CANARY"',
        'env_key = "CORP_API_KEY"',
        '[model_providers.corp.http_headers]',
        `X-Anything = "${canary}"`,
        '[model_providers.corp.env_http_headers]',
        'Authorization = "CORP_AUTH"',
        '[shell_environment_policy.set]',
        'GITHUB_TOKEN = "x"',
      ].join('\n'),
    );
    expect(diagnostics.map((d) => d.path).sort()).toEqual([
      'model_providers.corp.experimental_bearer_token',
      'model_providers.corp.http_headers.X-Anything',
      'shell_environment_policy.set.GITHUB_TOKEN',
    ]);
    for (const d of diagnostics) {
      expect(d.code).toBe('codex-base-credential');
      expect(JSON.stringify(d)).not.toContain('CANARY');
    }
  });

  it('rejects a key shaped like a credential without showing it', () => {
    const canary = 'ghp_CANARYcanary0123456789abcdefABCD';
    const { diagnostics } = validate(
      [
        `"${canary}" = "x"`,
        '[model_providers.corp.http_headers]',
        `"${canary}" = "y"`,
        '[agents]',
        `"${canary}" = 1`,
        'constructor = 2',
      ].join('\n'),
    );
    expect(diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['codex-base-credential', '"<redacted>"'],
      ['codex-base-credential', 'model_providers.corp.http_headers."<redacted>"'],
      ['codex-base-owned-key', 'agents."<redacted>"'],
      ['codex-base-owned-key', 'agents.constructor'],
    ]);
    expect(JSON.stringify(diagnostics)).not.toContain('CANARY');
  });

  it('rejects date-time values', () => {
    const { diagnostics } = validate('when = 1979-05-27T07:32:00Z\n');
    expect(diagnostics).toMatchObject([{ code: 'codex-base-datetime', path: 'when', line: 1 }]);
  });

  it('reports TOML syntax errors with line and column', () => {
    const { diagnostics } = validate('model = \n');
    expect(diagnostics).toMatchObject([{ code: 'toml-syntax', file: FILE, line: 1 }]);
  });
});

describe('loadCodexBase', () => {
  it('treats a missing file as an empty base', async () => {
    const dir = await tmpDir();
    expect(await loadCodexBase(dir)).toMatchObject({ base: {}, diagnostics: [], exists: false });
  });

  it('reads and validates the file in the config dir', async () => {
    const dir = await tmpDir();
    await writeFile(join(dir, 'codex-base.toml'), 'model = "m"\n[mcp_servers.x]\nurl = "u"\n');
    const loaded = await loadCodexBase(dir);
    expect(loaded.exists).toBe(true);
    expect(loaded.diagnostics).toMatchObject([
      { code: 'codex-base-owned-key', file: join(dir, 'codex-base.toml'), line: 2 },
    ]);
  });

  it('reports a directory in place of the file', async () => {
    const dir = await tmpDir();
    await mkdir(join(dir, 'codex-base.toml'));
    const loaded = await loadCodexBase(dir);
    expect(loaded.diagnostics).toMatchObject([{ code: 'codex-base-unreadable' }]);
    expect(loaded.diagnostics[0]?.message).toMatch(/directory/);
  });
});

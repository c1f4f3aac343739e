/**
 * Planning an import: format detection, registry IDs (invalid with a suggestion, taken, repeated),
 * --only and --rename, and what happens to literal secrets with and without --move-secrets.
 * The plan writes nothing; secret values never reach a diagnostic or a fragment preview.
 */
import { describe, expect, it } from 'vitest';

import {
  detectFormat,
  planImport,
  suggestId,
  type PlanContext,
} from '../../../src/features/onboard/import-plan.js';
import { FIXTURE_SECRETS, importFixture } from '../../support/import-fixtures.js';

function context(over: Partial<PlanContext> = {}): PlanContext {
  return {
    takenIds: new Set(),
    fragmentFile: (id) => `/config/tool-mcp.d/50-${id}.toml`,
    fileExists: () => false,
    lookup: () => undefined,
    moveSecrets: false,
    origin: 'Imported by a test',
    ...over,
  };
}

const codex = importFixture('codex', 'codex/config.toml');
const byId = (plan: ReturnType<typeof planImport>, id: string) => {
  const found = plan.servers.find((s) => s.id === id);
  if (found === undefined) throw new Error(`no ${id}`);
  return found;
};
const codes = (s: { diagnostics: readonly { code: string }[] }) => s.diagnostics.map((d) => d.code);

describe('detectFormat', () => {
  it('tells the three formats apart by name and content', () => {
    expect(detectFormat('/x/config.toml', '')).toBe('codex');
    expect(detectFormat('/x/.mcp.json', '{"mcpServers": {}}')).toBe('claude');
    expect(detectFormat('/x/.claude.json', '{"projects": {}}')).toBe('claude');
    expect(
      detectFormat(
        '/x/server.json',
        '{"$schema": "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json"}',
      ),
    ).toBe('server-json');
    expect(detectFormat('/x/other.json', '{"servers": {}}')).toBeUndefined();
  });
});

describe('planImport', () => {
  it('refuses the whole import while a selected server has an error, naming each', () => {
    const plan = planImport(codex, context());
    expect(plan.ok).toBe(false);
    expect(codes(byId(plan, 'Bad.Name'))).toEqual(['import-invalid-id']);
    expect(byId(plan, 'Bad.Name').diagnostics[0]?.message).toContain('--rename Bad.Name=bad-name');
    expect(byId(plan, 'github').ok).toBe(true);
    expect(byId(plan, 'linear').ok).toBe(false);
  });

  it('imports the servers --only selects, and renames with --rename', () => {
    const plan = planImport(
      codex,
      context({ only: ['github', 'Bad.Name'], rename: { 'Bad.Name': 'bad-name' } }),
    );
    expect(plan.servers.map((s) => [s.name, s.id, s.ok])).toEqual([
      ['github', 'github', true],
      ['Bad.Name', 'bad-name', true],
    ]);
    expect(plan.ok).toBe(true);
    const github = byId(plan, 'github');
    expect(github.tools).toEqual(['search_repositories', 'get_file_contents']);
    expect(github.preview).toContain('env_vars = ["GITHUB_PERSONAL_ACCESS_TOKEN", "HTTPS_PROXY"]');
    expect(github.preview).toContain('"search_repositories",');
    expect(github.missing).toEqual(['GITHUB_PERSONAL_ACCESS_TOKEN', 'HTTPS_PROXY']);
    // without --move-secrets the literal stays where it was, and the variable is named
    expect(codes(github)).toEqual(['import-secret-not-moved']);
    expect(github.move).toEqual([]);
  });

  it('names an unknown --only with a suggestion', () => {
    const plan = planImport(codex, context({ only: ['githb'] }));
    expect(plan.diagnostics.map((d) => d.code)).toEqual(['import-only-unknown']);
    expect(plan.diagnostics[0]?.message).toContain("did you mean 'github'?");
  });

  it('refuses an ID the registry has, and two servers with one ID', () => {
    const taken = planImport(codex, context({ only: ['github'], takenIds: new Set(['github']) }));
    expect(codes(byId(taken, 'github'))).toContain('import-id-taken');
    expect(byId(taken, 'github').diagnostics[0]?.message).toContain('--rename github=github-2');
    const home = planImport(importFixture('claude', 'claude/claude.json'), context());
    expect(home.servers.map((s) => codes(s))).toEqual([[], ['import-duplicate-id'], []]);
  });

  it('moves secrets with --move-secrets, refusing one that would overwrite another value', () => {
    const plan = planImport(codex, context({ only: ['github', 'docs'], moveSecrets: true }));
    expect(byId(plan, 'github').move.map((m) => m.name)).toEqual(['GITHUB_PERSONAL_ACCESS_TOKEN']);
    expect(
      byId(plan, 'docs')
        .move.map((m) => m.name)
        .sort(),
    ).toEqual(['DOCS_TOKEN', 'DOCS_X_API_KEY']);
    expect(byId(plan, 'github').missing).toEqual(['HTTPS_PROXY']);
    const conflict = planImport(
      codex,
      context({
        only: ['github'],
        moveSecrets: true,
        lookup: (name) =>
          name === 'GITHUB_PERSONAL_ACCESS_TOKEN' ? 'another-value-123' : undefined,
      }),
    );
    expect(codes(byId(conflict, 'github'))).toEqual(['import-secret-conflict']);
    expect(conflict.ok).toBe(false);
  });

  it('refuses, before anything starts, a server to be probed whose variables are not set', () => {
    // github names GITHUB_PERSONAL_ACCESS_TOKEN (a literal in the source) and HTTPS_PROXY
    const probed = planImport(codex, context({ only: ['github'], probe: true }));
    const error = byId(probed, 'github').diagnostics.find((d) => d.code === 'missing-env-var');
    expect(error?.severity).toBe('error');
    expect(error?.message).toContain('GITHUB_PERSONAL_ACCESS_TOKEN, HTTPS_PROXY');
    expect(error?.message).toContain('--move-secrets');
    expect(error?.message).toContain('--no-probe');
    expect(probed.ok).toBe(false);
    // set, moved, or not probed: no such error
    const set = planImport(
      codex,
      context({
        only: ['github'],
        probe: true,
        moveSecrets: true,
        lookup: (n) => (n === 'HTTPS_PROXY' ? 'x' : undefined),
      }),
    );
    expect(codes(byId(set, 'github'))).not.toContain('missing-env-var');
    const unprobed = planImport(codex, context({ only: ['github'], probe: false }));
    expect(codes(byId(unprobed, 'github'))).not.toContain('missing-env-var');
  });

  it('keeps every secret value out of diagnostics and previews', () => {
    const plan = planImport(codex, context({ moveSecrets: true }));
    const text = JSON.stringify(plan.servers.map((s) => [s.diagnostics, s.preview]));
    for (const secret of FIXTURE_SECRETS) expect(text).not.toContain(secret);
  });

  it('suggests registry IDs for other names', () => {
    expect(suggestId('My Server')).toBe('my-server');
    expect(suggestId('mmo_mesh')).toBe('mmo-mesh-server');
    expect(suggestId('42')).toBe('server');
  });
});

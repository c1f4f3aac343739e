/**
 * `profile doctor`'s `mcp-revision`: what the detected Codex speaks to a session's servers, read
 * from codex-base.toml's `[features]` against the version table.
 */
import { describe, expect, it } from 'vitest';

import { CODEX_VERSIONS } from '../../../src/config/codex/codex-versions.js';
import { mcp2026On, mcpRevisionDiagnostic } from '../../../src/features/profile/mcp-revision.js';

describe('mcp-revision', () => {
  it('tells each supported version apart by its feature flag, off by default', () => {
    for (const facts of CODEX_VERSIONS) {
      expect(facts.mcp2026.feature).toBe('mcp_2026_07_28');
      expect(facts.mcp2026.stdioEnv).toBe('CODEX_MCP_PROTOCOL_VERSION');
      expect(mcp2026On({}, facts)).toBe(false);
      expect(mcp2026On({ features: { mcp_2026_07_28: true } }, facts)).toBe(true);
      expect(mcp2026On({ features: { mcp_2026_07_28: 'yes' } }, facts)).toBe(false);
      const off = mcpRevisionDiagnostic({}, 'codex-base.toml', facts, facts.measured);
      expect(off).toMatchObject({ severity: 'info', code: 'mcp-revision' });
      expect(off.message).toContain(`Codex ${facts.measured} speaks MCP 2025`);
      const on = mcpRevisionDiagnostic(
        { features: { mcp_2026_07_28: true, shell_snapshot: false } },
        'codex-base.toml',
        facts,
        undefined,
      );
      expect(on.message).toContain('speaks MCP 2026-07-28');
      expect(on.message).toContain('server/discover');
    }
  });
});

/**
 * The version table's questions, pure: classification of version strings, version-gated keys,
 * approval modes per annotation, and the server names each version offers.
 */
import { describe, expect, it } from 'vitest';

import {
  CODEX_VERSIONS,
  NEWEST_CODEX,
  acceptsMcpServerKey,
  acceptsTopLevelKey,
  approvalModeAsks,
  classifyCodexVersion,
  codexFacts,
  isOfferedNamespace,
  offeredNameCollisions,
  offeredNamespace,
  offeredServerName,
  serverOfFlatName,
  serverOfNamespace,
  supportedSeriesText,
  versionGatedMcpServerKeys,
  versionGatedTopLevelKeys,
} from '../../../src/config/codex/codex-versions.js';

const row = (series: string) => {
  const found = CODEX_VERSIONS.find((r) => r.series === series);
  if (found === undefined) throw new Error(`no row ${series}`);
  return found;
};

describe('classifyCodexVersion', () => {
  it('knows 0.171.x and 0.149.x, newest first, and 0.171 is the default', () => {
    expect(CODEX_VERSIONS.map((r) => r.series)).toEqual(['0.171', '0.149']);
    expect(NEWEST_CODEX.series).toBe('0.171');
    expect(supportedSeriesText()).toBe('0.149.x, 0.171.x');
  });

  it('classifies every patch and prerelease of a listed series as supported', () => {
    for (const v of ['0.171.0', '0.171.3', '0.171.0-alpha.1']) {
      expect(classifyCodexVersion(v)).toMatchObject({ supported: true, series: '0.171' });
    }
    expect(classifyCodexVersion('0.149.1').facts.series).toBe('0.149');
  });

  it('calls versions outside the table untested and applies the nearest older row', () => {
    expect(classifyCodexVersion('0.160.2')).toMatchObject({
      supported: false,
      series: '0.160',
      facts: { series: '0.149' },
    });
    expect(classifyCodexVersion('0.180.0').facts.series).toBe('0.171');
    expect(classifyCodexVersion('1.0.0').facts.series).toBe('0.171');
    expect(classifyCodexVersion('0.100.0').facts.series).toBe('0.149');
    expect(classifyCodexVersion('0.17.0')).toMatchObject({ supported: false });
    expect(classifyCodexVersion('0.1710.0')).toMatchObject({ supported: false });
    expect(classifyCodexVersion('not a version')).toMatchObject({
      supported: false,
      series: undefined,
      facts: { series: '0.171' },
    });
  });

  it('uses the newest row when no version is known', () => {
    expect(codexFacts(undefined)).toBe(NEWEST_CODEX);
    expect(codexFacts('0.149.1')).toBe(row('0.149'));
  });
});

describe('accepted keys', () => {
  it('gates startup_readiness, tool_input_schema_max_bytes and mcp_optional_startup_grace_ms to 0.171', () => {
    expect(versionGatedMcpServerKeys()).toEqual([
      'startup_readiness',
      'tool_input_schema_max_bytes',
    ]);
    expect(versionGatedTopLevelKeys()).toEqual(['mcp_optional_startup_grace_ms']);
    for (const key of ['startup_readiness', 'tool_input_schema_max_bytes']) {
      expect(acceptsMcpServerKey(row('0.171'), key)).toBe(true);
      expect(acceptsMcpServerKey(row('0.149'), key)).toBe(false);
    }
    expect(acceptsTopLevelKey(row('0.171'), 'mcp_optional_startup_grace_ms')).toBe(true);
    expect(acceptsTopLevelKey(row('0.149'), 'mcp_optional_startup_grace_ms')).toBe(false);
  });

  it('accepts the keys both versions know on both, and no invented key', () => {
    for (const facts of CODEX_VERSIONS) {
      for (const key of [
        'command',
        'enabled_tools',
        'disabled_tools',
        'default_tools_approval_mode',
      ]) {
        expect(acceptsMcpServerKey(facts, key)).toBe(true);
      }
      expect(acceptsMcpServerKey(facts, 'bearer_token')).toBe(false);
      expect(acceptsTopLevelKey(facts, 'model')).toBe(true);
    }
  });
});

describe('approvalModeAsks', () => {
  const annotations = [
    undefined,
    {},
    { readOnlyHint: true },
    { readOnlyHint: true, destructiveHint: true },
    { readOnlyHint: false },
    { destructiveHint: false, openWorldHint: false },
    { destructiveHint: true },
  ];

  it('prompt always asks, approve never, writes unless read-only, on every version', () => {
    for (const facts of CODEX_VERSIONS) {
      for (const a of annotations) {
        expect(approvalModeAsks(facts, 'prompt', a)).toBe(true);
        expect(approvalModeAsks(facts, 'approve', a)).toBe(false);
        expect(approvalModeAsks(facts, 'writes', a)).toBe(a?.readOnlyHint !== true);
      }
    }
  });

  it('auto on 0.171 skips read-only tools even when destructive, and closed-world tools', () => {
    const asks = annotations.map((a) => approvalModeAsks(row('0.171'), 'auto', a));
    expect(asks).toEqual([true, true, false, false, true, false, true]);
  });

  it('auto on 0.149 asks for every destructive tool, and skips read-only and closed-world ones', () => {
    const asks = annotations.map((a) => approvalModeAsks(row('0.149'), 'auto', a));
    expect(asks).toEqual([true, true, false, true, true, false, true]);
  });
});

describe('server names', () => {
  it('replaces every character outside [A-Za-z0-9_] on every version', () => {
    for (const facts of CODEX_VERSIONS) {
      expect(offeredServerName(facts, 'git_hub2')).toBe('git_hub2');
      expect(offeredServerName(facts, 'git-hub')).toBe('git_hub');
    }
  });

  it('finds registry IDs that collide on every version', () => {
    for (const facts of CODEX_VERSIONS) {
      expect(offeredNameCollisions(facts, ['a-b', 'a_b', 'mmo_mesh', 'mmo-mesh', 'c'])).toEqual([
        ['a-b', 'a_b'],
        ['mmo-mesh', 'mmo_mesh'],
      ]);
      expect(offeredNameCollisions(facts, ['a-b', 'a_c'])).toEqual([]);
    }
  });

  it('gives each server ID one namespace, case kept and nothing appended, on every version', () => {
    for (const facts of CODEX_VERSIONS) {
      expect(offeredNamespace(facts, 'everything-http')).toBe('mcp__everything_http');
      expect(offeredNamespace(facts, 'a__')).toBe('mcp__a__');
      expect(offeredNamespace(facts, 'q---')).toBe('mcp__q___');
      expect(offeredNamespace(facts, 'Mixed-Case')).toBe('mcp__Mixed_Case');
    }
  });

  it('reads a namespace back to exactly one server of the process, or to none', () => {
    const ids = ['a', 'a__', 'a-b', 'x-y', 'x_y', 'Mixed-Case'];
    for (const facts of CODEX_VERSIONS) {
      expect(serverOfNamespace(facts, 'mcp__a', ids)).toBe('a');
      expect(serverOfNamespace(facts, 'mcp__a__', ids)).toBe('a__');
      expect(serverOfNamespace(facts, 'mcp__a_b', ids)).toBe('a-b');
      expect(serverOfNamespace(facts, 'mcp__Mixed_Case', ids)).toBe('Mixed-Case');
      // two servers under one name, a look-alike, a hashed name, another case: none
      expect(serverOfNamespace(facts, 'mcp__x_y', ids)).toBeUndefined();
      expect(serverOfNamespace(facts, 'mcp__a-b', ids)).toBeUndefined();
      expect(serverOfNamespace(facts, 'mcp__a_b__', ids)).toBeUndefined();
      expect(serverOfNamespace(facts, 'mcp__a_b_0123456789ab', ids)).toBeUndefined();
      expect(serverOfNamespace(facts, 'mcp__mixed_case', ids)).toBeUndefined();
      expect(serverOfNamespace(facts, 'a_b', ids)).toBeUndefined();
      // the same ID twice is still one server
      expect(serverOfNamespace(facts, 'mcp__a_b', ['a-b', 'a-b'])).toBe('a-b');
    }
  });

  it('reads a flat function name back only when one server can have offered it', () => {
    for (const facts of CODEX_VERSIONS) {
      expect(serverOfFlatName(facts, 'mcp__a_b__get_sum', ['a-b', 'c'])).toEqual([
        'a-b',
        'get_sum',
      ]);
      expect(serverOfFlatName(facts, 'mcp__a__one', ['a', 'b'])).toEqual(['a', 'one']);
      // `a`'s `__one` or `a__`'s `one`: neither
      expect(serverOfFlatName(facts, 'mcp__a____one', ['a', 'a__'])).toBeUndefined();
      expect(serverOfFlatName(facts, 'mcp__a-b__one', ['a-b'])).toBeUndefined();
      expect(serverOfFlatName(facts, 'mcp__zz__one', ['a-b'])).toBeUndefined();
    }
  });

  it('accepts exactly the offered or the hashed namespace of a server', () => {
    for (const facts of CODEX_VERSIONS) {
      expect(isOfferedNamespace(facts, 'mcp__a_b', 'a-b', false)).toBe(true);
      expect(isOfferedNamespace(facts, 'mcp__a_b__', 'a-b', false)).toBe(false);
      expect(isOfferedNamespace(facts, 'mcp__a_b_0123456789ab', 'a-b', true)).toBe(true);
      expect(isOfferedNamespace(facts, 'mcp__a_b_0123456789ab', 'a-b', false)).toBe(false);
      expect(isOfferedNamespace(facts, 'mcp__a_b', 'a-b', true)).toBe(false);
    }
  });

  it('maps names outside the pattern on 0.171 and cannot start them on 0.149', () => {
    expect(offeredServerName(row('0.171'), 'a.b')).toBe('a_b');
    expect(offeredServerName(row('0.149'), 'a.b')).toBeUndefined();
    expect(offeredNameCollisions(row('0.171'), ['a.b', 'a_b', 'c'])).toEqual([['a.b', 'a_b']]);
    expect(offeredNameCollisions(row('0.149'), ['a.b', 'a_b'])).toEqual([]);
  });
});

describe('the rest of each row', () => {
  it('records the measured differences', () => {
    expect(row('0.171')).toMatchObject({
      hasMcpServerCommand: false,
      rollbackMethod: 'thread/revert',
      nativeRolesIsolated: false,
      shellInheritsAllByDefault: true,
      responses: {
        instructions: 'first-developer-message',
        toolOutput: 'input-text-array',
        updatePlanByDefault: false,
      },
    });
    expect(row('0.149')).toMatchObject({
      hasMcpServerCommand: true,
      rollbackMethod: 'thread/rollback',
      nativeRolesIsolated: false,
      shellInheritsAllByDefault: true,
      responses: {
        instructions: 'instructions-field',
        toolOutput: 'string',
        updatePlanByDefault: true,
      },
    });
  });
});

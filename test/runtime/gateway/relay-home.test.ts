/**
 * The keys the relay strips from a server table come from the version table: every key that
 * says how to reach a server in any supported Codex version, and none of the grant settings.
 */
import { describe, expect, it } from 'vitest';

import { CODEX_VERSIONS } from '../../../src/config/codex/codex-versions.js';
import { TRANSPORT_KEYS } from '../../../src/runtime/gateway/relay-home.js';

describe('TRANSPORT_KEYS', () => {
  it('is the union of the rows’ transport keys, each a key the row accepts', () => {
    for (const row of CODEX_VERSIONS) {
      for (const key of row.mcpTransportKeys) {
        expect(row.mcpServerKeys).toContain(key);
        expect(TRANSPORT_KEYS).toContain(key);
      }
    }
    expect(new Set(TRANSPORT_KEYS).size).toBe(TRANSPORT_KEYS.length);
    for (const key of ['command', 'args', 'env', 'env_vars', 'cwd', 'url', 'http_headers']) {
      expect(TRANSPORT_KEYS).toContain(key);
    }
    for (const key of ['enabled', 'required', 'enabled_tools', 'tool_timeout_sec']) {
      expect(TRANSPORT_KEYS).not.toContain(key);
    }
  });
});

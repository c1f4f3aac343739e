import { describe, expect, it } from 'vitest';

import { resolveDirectories } from '../../../src/foundation/paths/directories.js';

describe('resolveDirectories', () => {
  it('uses ~/.config, ~/.local/share and ~/.local/state by default', () => {
    const d = resolveDirectories({}, '/home/op');
    expect(d).toMatchObject({
      configDir: '/home/op/.config/codex-mmo',
      dataDir: '/home/op/.local/share/codex-mmo',
      stateDir: '/home/op/.local/state/codex-mmo',
      baseCodexHome: '/home/op/.codex',
      codexBin: 'codex',
    });
  });
  it('prefers flags over CODEX_MMO_* over XDG_*', () => {
    const env = {
      XDG_CONFIG_HOME: '/x/config',
      CODEX_MMO_DATA_DIR: '/own/data',
      XDG_DATA_HOME: '/x/data',
      CODEX_HOME: '/ch',
      CODEX_MMO_CODEX_BIN: '/bin/codex',
    };
    const d = resolveDirectories(env, '/home/op', { stateDir: 'rel/state' }, '/cwd');
    expect(d.configDir).toBe('/x/config/codex-mmo');
    expect(d.dataDir).toBe('/own/data');
    expect(d.stateDir).toBe('/cwd/rel/state');
    expect(d.baseCodexHome).toBe('/ch');
    expect(d.codexBin).toBe('/bin/codex');
  });
});

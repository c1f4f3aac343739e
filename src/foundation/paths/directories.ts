/**
 * Where codex-mmo keeps its files (docs/design.md §2): config, data and state directories, the base
 * Codex home and the Codex binary. Pure: the environment and home directory are parameters.
 */
import { isAbsolute, join, resolve } from 'node:path';

export type Environment = Readonly<Record<string, string | undefined>>;

export interface DirectoryOverrides {
  readonly configDir?: string | undefined;
  readonly dataDir?: string | undefined;
  readonly stateDir?: string | undefined;
  readonly codexBin?: string | undefined;
}

export interface Directories {
  /** Operator-owned: `tool-mcp.d/`, `credentials.env`, `codex-base.toml`, `tool-mcp.lock`. */
  readonly configDir: string;
  /** Installed packs (`profiles/`) and snapshots (`snapshots/`). */
  readonly dataDir: string;
  /** Sessions and logs. */
  readonly stateDir: string;
  /** The operator's own Codex home; only `auth.json` is ever read from it. */
  readonly baseCodexHome: string;
  /** Explicit Codex binary, or `codex` to be found on PATH. */
  readonly codexBin: string;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** Expands a leading `~/` (or a lone `~`) against `home`; other paths are returned as given. */
export function expandTilde(path: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return path;
}

export function resolveDirectories(
  env: Environment,
  home: string,
  overrides: DirectoryOverrides = {},
  cwd: string = home,
): Directories {
  const pick = (
    flag: string | undefined,
    own: string,
    xdg: string,
    fallback: string,
    leaf = 'codex-mmo',
  ): string => {
    const explicit = nonEmpty(flag) ?? nonEmpty(env[own]);
    if (explicit !== undefined) return resolve(cwd, expandTilde(explicit, home));
    const xdgBase = nonEmpty(env[xdg]);
    if (xdgBase !== undefined && isAbsolute(xdgBase)) return join(xdgBase, leaf);
    return join(home, fallback, leaf);
  };
  return {
    configDir: pick(overrides.configDir, 'CODEX_MMO_CONFIG_DIR', 'XDG_CONFIG_HOME', '.config'),
    dataDir: pick(overrides.dataDir, 'CODEX_MMO_DATA_DIR', 'XDG_DATA_HOME', '.local/share'),
    stateDir: pick(overrides.stateDir, 'CODEX_MMO_STATE_DIR', 'XDG_STATE_HOME', '.local/state'),
    baseCodexHome: resolve(
      cwd,
      expandTilde(nonEmpty(env.CODEX_HOME) ?? join(home, '.codex'), home),
    ),
    codexBin: nonEmpty(overrides.codexBin) ?? nonEmpty(env.CODEX_MMO_CODEX_BIN) ?? 'codex',
  };
}

/** The tool-pin lock file's name inside the config directory. */
export const LOCK_FILE_NAME = 'tool-mcp.lock';

/** Well-known files inside the config directory. */
export function configFiles(configDir: string): {
  registryDir: string;
  credentials: string;
  codexBase: string;
  lock: string;
} {
  return {
    registryDir: join(configDir, 'tool-mcp.d'),
    credentials: join(configDir, 'credentials.env'),
    codexBase: join(configDir, 'codex-base.toml'),
    lock: join(configDir, LOCK_FILE_NAME),
  };
}

/**
 * What rendering produces: the files of one Codex process's home (`config.toml` and one
 * `agents/<role>.toml` per reachable native role), as text keyed by relative path.
 */
import type { BoundaryOptions } from './session-boundary.js';

import type { CodexVersionFacts } from '../codex/codex-versions.js';

/**
 * The variable that carries a Codex process's mesh credential to its `mmo_mesh` server (listed
 * in the rendered entry's `env_vars`); the value exists only in memory and in process environments.
 */
export const MESH_TOKEN_ENV = 'CODEX_MMO_MESH_TOKEN';

/** How the rendered `mmo_mesh` entry starts the mesh server; filled in at launch. */
export interface MeshLaunch {
  readonly command: string;
  readonly args: readonly string[];
}

export interface RenderOptions {
  /** Home directory used to expand `~/` in commands and cwd. */
  readonly home: string;
  /** Actual mesh server command; when absent a clearly marked placeholder is rendered. */
  readonly mesh?: MeshLaunch;
  /**
   * The Codex version the home is rendered for: keys it does not accept are left out (default:
   * the newest supported version).
   */
  readonly codex?: CodexVersionFacts;
  /**
   * The session's read denies and the process's working directory; without them (a render for
   * inspection) the permission profile denies nothing and no project is marked untrusted.
   */
  readonly boundary?: BoundaryOptions;
  /**
   * The session id, set as `CODEX_MMO_SESSION` in every stdio server's `env`, so the session can
   * find and end each server process even after Codex is gone (Codex puts each in its own group).
   */
  readonly sessionMarker?: string;
  /**
   * True when the session's model wire and gateway narrow each role (root included), so the
   * process's `config.toml` enables the union of its roles' grants; false renders the root's
   * grant there. Default: whether the model wire can front the base settings' provider.
   */
  readonly rolesOnWire?: boolean;
}

export interface RenderedHome {
  /** The process root role. */
  readonly process: string;
  /** Relative path (`config.toml`, `agents/<role>.toml`) → file text. */
  readonly files: ReadonlyMap<string, string>;
}

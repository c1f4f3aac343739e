/**
 * What one smoke run is asked for and what it collects, shared by the processes it drives: the
 * plan, Codex, the session's gateway and model wire, the credential values to mask, and the
 * failures and diagnostics found along the way.
 */
import type { CodexVersionFacts } from '../../config/codex/codex-versions.js';
import type { ReadDeny } from '../../config/compile/session-boundary.js';
import type { MeshLaunch } from '../../config/compile/types.js';
import type { ResolvedPlan } from '../../config/profile/types.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';
import type { Snapshot } from '../../config/snapshot/types.js';
import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';
import type { Directories, Environment } from '../../foundation/paths/directories.js';
import type { ServerFailure } from '../../runtime/gateway/server-failure.js';
import type { SessionGateway } from '../../runtime/gateway/session-gateway.js';
import type { ModelWire } from '../../runtime/model-wire/model-wire.js';
import type { SmokeServerFailure } from './smoke-report.js';
import type { SmokeScript } from './smoke-script.js';

export interface SmokeRequest {
  /** An installed pack name or a pack directory. */
  readonly nameOrPath: string;
  readonly dirs: Directories;
  readonly cwd: string;
  /** The launch environment (source of base and referenced variables). */
  readonly env: Environment;
  readonly home: string;
  /** Bound on the scripted turn of one process, in milliseconds (default 120 000). */
  readonly turnTimeoutMs?: number;
  /** Command prefix that runs the codex-mmo CLI for `mmo_mesh` (default: this installation). */
  readonly cli?: MeshLaunch;
}

/** Everything one smoke run collects, shared by the processes it drives. */
export interface Run {
  readonly snapshot: Snapshot;
  readonly plan: ResolvedPlan;
  readonly request: SmokeRequest;
  readonly codexBin: string;
  /** What each Codex process's environment gains to run `codexBin` (the npm launcher's variables). */
  readonly codexEnv: Readonly<Record<string, string>>;
  /** `codexBin`'s row of the version table: homes are rendered for it. */
  readonly codex: CodexVersionFacts;
  readonly credentials: CredentialSource;
  readonly sessionDir: string;
  readonly workdir: string;
  readonly cli: MeshLaunch;
  readonly modelUrl: string;
  /** The model wire between every Codex process and the scripted model. */
  readonly wire: ModelWire;
  /** The session gateway every process reaches its Tool MCP servers through (once started). */
  gateway?: SessionGateway;
  readonly script: SmokeScript;
  /** What the smoke processes' shells may not read: the operator's directories, whole. */
  readonly readDeny: ReadDeny;
  readonly secrets: string[];
  readonly failures: SmokeServerFailure[];
  /** Servers the gateway saw fail, in their own words (masked). */
  readonly serverFailures: ServerFailure[];
  readonly diagnostics: Diagnostic[];
}

export function mask(run: Run, text: string): string {
  return maskSecrets(text, run.secrets);
}

/** The part of Codex's "required MCP servers failed" text about one server. */
export function serverError(text: string, server: string): string {
  const marker = 'required MCP servers failed to initialize:';
  const rest = text.slice(text.indexOf(marker) + marker.length);
  const entry = rest
    .split(';')
    .map((p) => p.trim())
    .find((p) => p.startsWith(`${server}: `));
  return entry?.slice(server.length + 2) ?? text;
}

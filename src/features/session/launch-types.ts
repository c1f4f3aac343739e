/**
 * The shapes of a session launch: what the caller hands `launchSession` (the stored snapshot,
 * plan, credentials, directories and callbacks), the running session it gets back, and how the
 * session ended.
 */
import type { CodexVersionFacts } from '../../config/codex/codex-versions.js';
import type { ReadDeny } from '../../config/compile/session-boundary.js';
import type { MeshLaunch } from '../../config/compile/types.js';
import type { ResolvedPlan } from '../../config/profile/types.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';
import type { StoredSnapshot } from '../../config/snapshot/types.js';
import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { Environment } from '../../foundation/paths/directories.js';
import type { SessionSupervision } from '../../runtime/approvals/session-supervision.js';
import type { SessionEvent } from '../../runtime/events/session-event.js';
import type { SessionBroker } from '../../runtime/mesh/session-broker.js';
import type { ModelWire } from '../../runtime/model-wire/model-wire.js';
import type { SessionRecord, SessionStatus } from '../../runtime/session/session-record.js';

import type { HostView } from '../../foundation/process/host-view.js';
import type { TeamBudget } from '../../runtime/session/team-budget.js';
import type { ResumeSource } from './resume-source.js';

export interface LaunchContext {
  readonly stored: StoredSnapshot;
  readonly plan: ResolvedPlan;
  readonly launchEnv: Environment;
  readonly credentials: CredentialSource;
  readonly home: string;
  readonly baseCodexHome: string;
  /** Whether process homes get a copy of the base home's `auth.json` (`needsAuthFile`). */
  readonly authFile: boolean;
  readonly cli: MeshLaunch;
  /** The Codex version's row of the version table, for participants' homes (default: newest). */
  readonly codex?: CodexVersionFacts;
  /** What every process's shell may not read. */
  readonly readDeny: ReadDeny;
  /** The operator's directories, which no participant may work in. */
  readonly stateDir: string;
  readonly configDir: string;
  readonly dataDir: string;
  /** The host view every Codex process of the session runs in, where it can be built. */
  readonly hostView?: HostView;
  /** Most participants the session may start (default 8). */
  readonly maxParticipants?: number;
  /** The session's other ceilings: Codex processes, server processes, memory (absent: none). */
  readonly budget?: Omit<TeamBudget, 'participants'>;
  /** `inherit` for `run`; `exec` pipes stderr to log it (and hands it to `onStderr`). */
  readonly stdio: 'inherit' | 'pipe-stderr';
  readonly onStderr?: (chunk: string) => void;
  /** Seconds an approval request waits for a person before it is denied (default 900). */
  readonly approvalTimeoutSec?: number;
  /** The OS user at the terminal, recorded for answers given in the TUI (default: this process's). */
  readonly user?: string;
  /** Receives every session event as it is logged (exec's progress output). */
  readonly onEvent?: (event: SessionEvent) => void;
  /** For `exec`: `-c key=value` overrides and a model for the root's app-server. */
  readonly execOverrides?: { readonly config: readonly string[]; readonly model?: string };
  /** Problems found while the session runs (a drifted tool withheld by the gateway). */
  readonly onDiagnostic?: (diagnostic: Diagnostic) => void;
  /** The earlier session this one continues: its root's and participants' threads. */
  readonly resume?: ResumeSource;
}

export interface SessionOutcome {
  readonly exitCode: number;
  /** The root's last message (`exec`), masked. */
  readonly finalMessage?: string;
  readonly status: SessionStatus;
  readonly record: SessionRecord;
}

export interface RunningSession {
  readonly id: string;
  readonly dir: string;
  readonly pid: number | undefined;
  readonly broker: SessionBroker;
  /** The session's model wire: which role each thread runs (`roleOfThread`). */
  readonly modelWire: ModelWire;
  readonly supervision: SessionSupervision;
  /** Forwards a signal to Codex; the session then ends as `stopped`. */
  signal(signal: NodeJS.Signals): void;
  readonly done: Promise<SessionOutcome>;
}

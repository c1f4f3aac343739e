/**
 * What a session broker is started with: the session's snapshot, plan, credentials and
 * directories, the Codex to run participants with, and the session's hooks (gateway, model wire,
 * approval queue, event log) it hands each participant.
 */
import type { RootApprovalFeed } from '../approvals/root-approval-feed.js';
import type { ApprovalPolicy } from '../codex/app-server-client.js';
import type { ServerNotification } from '../codex/app-server-protocol.js';
import type { CodexVersionFacts } from '../../config/codex/codex-versions.js';
import type { ReadDeny } from '../../config/compile/session-boundary.js';
import type { HostView } from '../../foundation/process/host-view.js';
import type { MeshLaunch, RenderedHome } from '../../config/compile/types.js';
import type { ThreadAttribution } from '../gateway/relay-connection.js';
import type { SessionGateway } from '../gateway/session-gateway.js';
import type { Environment } from '../../foundation/paths/directories.js';
import type { ResolvedPlan } from '../../config/profile/types.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';
import type { Snapshot } from '../../config/snapshot/types.js';
import type { MeshCaller, ParticipantInfo } from '../protocol/mesh-protocol.js';
import type { BudgetRefusal, TeamBudget } from '../session/team-budget.js';
import type { PreviousSession } from './previous-participants.js';
import type { ConnectionLimitOptions } from '../../foundation/process/connection-limits.js';

/** A participant's home as it is written, and what its environment gains with it. */
export interface PreparedHome {
  readonly home: RenderedHome;
  readonly env: Readonly<Record<string, string>>;
}

export interface BrokerOptions {
  readonly sessionId: string;
  readonly sessionDir: string;
  readonly socketPath: string;
  readonly snapshot: Snapshot;
  readonly plan: ResolvedPlan;
  readonly launchEnv: Environment;
  readonly credentials: CredentialSource;
  /** The user's home, for `~/` in server commands. */
  readonly home: string;
  /** The operator's Codex home; only its `auth.json` is copied. */
  readonly baseCodexHome: string;
  readonly codexBin: string;
  /** What each participant's environment gains to run `codexBin` (the npm launcher's variables). */
  readonly codexEnv?: Readonly<Record<string, string>>;
  /** `codexBin`'s row of the version table: participants' homes hold only keys it accepts. */
  readonly codex?: CodexVersionFacts;
  /** The command prefix that runs the codex-mmo CLI (for participants' own `mmo_mesh`). */
  readonly cli: MeshLaunch;
  /**
   * The session's working directory: participants spawned without `cwd` work there, and any
   * `cwd` given must be it or below it.
   */
  readonly defaultCwd: string;
  /** The session's Tool MCP gateway: participants reach their servers through it. */
  readonly gateway?: SessionGateway;
  /** What every participant's shell may not read (rendered into its permission profile). */
  readonly readDeny?: ReadDeny;
  /** The host view every participant runs in, where it can be built. */
  readonly hostView?: HostView;
  /** Directories no participant may work in or above: config, data and state dir, base Codex home. */
  readonly forbiddenDirs?: readonly string[];
  /** Mark participants and their servers with `CODEX_MMO_SESSION=<sessionId>` (session-marker.ts). */
  readonly markProcesses?: boolean;
  /** Most participants running at once in the session (default DEFAULT_MAX_PARTICIPANTS). */
  readonly maxParticipants?: number;
  /** The session's other ceilings (Codex processes, memory); participants come from above. */
  readonly budget?: Omit<TeamBudget, 'participants'>;
  /** The resident memory of the session's processes now, in MB (for a memory ceiling). */
  readonly memoryMb?: () => number;
  /** Called with every spawn a ceiling refused, with the calling process and role. */
  readonly onBudgetRefusal?: (refusal: BudgetRefusal, caller: MeshCaller) => void;
  /** The session this one resumes: its participants may be continued with `resume`. */
  readonly previous?: PreviousSession;
  /** Called whenever a participant appears or changes status. */
  readonly onChange?: (participants: readonly ParticipantInfo[]) => void;
  /** Limits on connections that have not yet been accepted by `hello`, and who hears of a flood. */
  readonly limits?: ConnectionLimitOptions;
  /**
   * Whether participants' homes get a copy of the base home's `auth.json` (default true): only
   * where the model provider needs it (`needsAuthFile`).
   */
  readonly authFile?: boolean;
  /** Adapts a participant's rendered home before it is written (the session's model wire). */
  readonly prepareHome?: (rendered: RenderedHome, participant: string) => PreparedHome;
  /**
   * The answer policy of a participant's approval requests (the session's approval queue);
   * without it they are declined.
   */
  readonly approvalsFor?: (
    participant: string,
    role: string,
    secrets: readonly string[],
  ) => ApprovalPolicy;
  /** Receives every app-server notification of every participant (the session's event log). */
  readonly onNotification?: (participant: string, role: string, n: ServerNotification) => void;
  /**
   * The model wire's role of a Codex thread (undefined: not seen). Given, every call is checked
   * against the spawn/control lists of its calling thread's role, and a call whose thread is
   * not attributed to a role of the calling process is refused.
   */
  readonly roleOfThread?: (threadId: string) => ThreadAttribution | undefined;
  /**
   * For an interactive root: the approval queue its `mmo_mesh` server may watch and answer, so
   * participants' requests are put to the person at the TUI too. Without it the root's server is
   * refused `watch_approvals`.
   */
  readonly rootApprovals?: RootApprovalFeed;
}

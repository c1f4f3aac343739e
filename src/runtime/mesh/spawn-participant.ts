/**
 * Starting one participant for the session broker: its working directory is checked, its own
 * environment resolved (only its process's variables), its home rendered (through the session's
 * gateway and model wire) and written, its mesh credential issued, and its Codex launched.
 */
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';

import type { ServerNotification } from '../codex/app-server-protocol.js';
import { NEWEST_CODEX } from '../../config/codex/codex-versions.js';
import { renderProcess } from '../../config/compile/render-process.js';
import { formatDiagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { describeError } from '../../foundation/errors.js';
import type { ResolvedProcess, ResolvedRole } from '../../config/profile/types.js';
import { removeAuth, writeProcessHome } from '../session/codex-home.js';
import { copyRollouts } from '../session/rollout-threads.js';
import type { PreviousParticipant } from './previous-participants.js';
import { absentMountPoints } from '../session/sandbox-leftovers.js';
import { maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';
import { processEnvironment } from '../session/process-env.js';
import { configDeny, maskedDirs, sandboxWritable } from '../session/read-deny.js';
import type { ContainerMasks } from '../../foundation/process/container-masks.js';
import { processView } from '../session/process-view.js';
import { SESSION_MARKER_ENV } from '../../foundation/process/session-marker.js';
import {
  MESH_SERVER_NAME,
  MeshError,
  type MeshCaller,
  type ParticipantInfo,
  type SpawnArgs,
} from '../protocol/mesh-protocol.js';
import type { BrokerOptions } from './broker-options.js';
import { meshLaunchFor } from './mesh-command.js';
import { MESH_TOKEN_ENV, type MeshCredentials } from './mesh-credential.js';
import { checkParticipantCwd } from './participant-cwd.js';
import type { Participant } from './participant.js';

const FORBIDDEN_NAMES = ['config dir', 'data dir', 'state dir', 'base Codex home'];

/** The broker state a spawn reads and changes. */
export interface SpawnHost {
  readonly options: BrokerOptions;
  readonly tokens: MeshCredentials;
  /** Sandbox mount points absent from participants' working directories when they started. */
  readonly mountPoints: Set<string>;
  /** The next participant id for `role`. */
  nextId(role: string): string;
  /** Lists the participant in the session. */
  add(id: string, participant: Participant): void;
  /** A participant appeared or changed status. */
  changed(): void;
  /** Whether the session is ending or the caller `owner` has no connection left. */
  gone(owner: string): boolean;
}

/** The working directory of a new participant, checked, with its absent mount points recorded. */
async function participantCwd(host: SpawnHost, args: SpawnArgs): Promise<string> {
  const options = host.options;
  const cwd = await checkParticipantCwd(
    args.cwd ?? options.defaultCwd,
    options.defaultCwd,
    (options.forbiddenDirs ?? []).map((path, i) => ({
      name: FORBIDDEN_NAMES[i] ?? 'codex-mmo directory',
      path,
    })),
  );
  // what the sandbox may make in the participant's directory, absent now, goes with the session
  for (const path of await absentMountPoints(
    cwd,
    (options.codex ?? NEWEST_CODEX).sandboxMountPoints,
  )) {
    host.mountPoints.add(path);
  }
  return cwd;
}

interface Prepared {
  readonly env: Record<string, string>;
  readonly secrets: string[];
  /** What its container hides, where masks alone shield it. */
  readonly masks?: ContainerMasks;
}

/** Renders and writes the participant's home; returns its environment and the secrets to mask. */
async function prepareParticipant(
  host: SpawnHost,
  args: SpawnArgs,
  process: ResolvedProcess,
  id: string,
  cwd: string,
  homeDir: string,
  earlier: PreviousParticipant | undefined,
): Promise<Prepared> {
  const { options, tokens } = host;
  const { snapshot, plan } = options;
  const environment = processEnvironment(
    plan,
    process,
    snapshot.base,
    options.launchEnv,
    options.credentials,
    homeDir,
  );
  const errors = environment.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) {
    throw new MeshError(
      'failed',
      `cannot start a participant of role '${args.role}': ${errors.map(formatDiagnostic).join('; ')}`,
    );
  }
  const authFile = options.authFile ?? true;
  const permissions = snapshot.profile.agents[args.role]?.permissions;
  const masked =
    options.readDeny === undefined || permissions === undefined
      ? undefined
      : maskedDirs(options.readDeny, {
          cwd,
          codexBin: await realpath(options.codexBin).catch(() => options.codexBin),
          roles: process.roles.length,
          authFile,
          writable: await sandboxWritable(permissions, cwd, options.launchEnv.TMPDIR),
        });
  const direct = renderProcess(snapshot, plan, args.role, {
    home: options.home,
    mesh: meshLaunchFor(options.cli, options.sessionDir, args.role, id),
    ...(options.codex !== undefined ? { codex: options.codex } : {}),
    ...(options.readDeny !== undefined
      ? { boundary: { deny: configDeny(options.readDeny, masked), cwd } }
      : {}),
    ...(options.markProcesses === true ? { sessionMarker: options.sessionId } : {}),
  });
  const relayed = options.gateway?.prepareProcess({
    processId: id,
    process,
    rendered: direct,
    // marked before the gateway sees it, so the participant's servers carry the marker too
    env:
      options.markProcesses === true
        ? { ...environment.env, [SESSION_MARKER_ENV]: options.sessionId }
        : environment.env,
    cwd,
  });
  const rendered = relayed?.rendered ?? direct;
  const prepared = options.prepareHome?.(rendered, id) ?? { home: rendered, env: {} };
  const wired = prepared.env;
  let masks: ContainerMasks | undefined;
  try {
    await writeProcessHome(prepared.home, homeDir, authFile ? options.baseCodexHome : undefined);
    // a continued participant finds its earlier thread's history in its own home
    if (earlier !== undefined) await copyRollouts(earlier.home, homeDir);
    if (masked !== undefined) masks = { hide: masked, keep: [await realpath(homeDir)] };
  } catch (error) {
    throw new MeshError('failed', `cannot write the home of ${id}: ${describeError(error)}`);
  }
  const processEnv = { ...(relayed?.env ?? environment.env), ...wired };
  const token = process.mesh ? tokens.issue({ process: args.role, participant: id }) : undefined;
  if (token !== undefined) options.gateway?.addMeshRoute({ process: id, role: args.role, token });
  const launched = { ...processEnv, ...options.codexEnv };
  const marked =
    options.markProcesses === true
      ? { ...launched, [SESSION_MARKER_ENV]: options.sessionId }
      : launched;
  const env = token === undefined ? marked : { ...marked, [MESH_TOKEN_ENV]: token };
  const secrets = [
    ...environment.secrets,
    ...(relayed?.tokens ?? []),
    ...options.credentials.secretValues(),
    ...(token === undefined ? [] : [token]),
    ...Object.values(wired),
  ];
  return { env, secrets, ...(masks !== undefined ? { masks } : {}) };
}

/**
 * Starts a participant of `args.role` for `caller` (already authorized, a slot reserved) and
 * waits until it is ready. `listed` is called once it is listed (it counts towards the cap then).
 * With `earlier`, it continues that participant's thread of the resumed session.
 */
export async function spawnParticipant(
  host: SpawnHost,
  caller: MeshCaller,
  args: SpawnArgs,
  process: ResolvedProcess,
  resolved: ResolvedRole,
  listed: () => void,
  earlier?: PreviousParticipant,
): Promise<ParticipantInfo> {
  const options = host.options;
  const cwd = await participantCwd(host, args);
  const id = host.nextId(args.role);
  const homeDir = join(options.sessionDir, 'homes', id);
  const { env, secrets, masks } = await prepareParticipant(
    host,
    args,
    process,
    id,
    cwd,
    homeDir,
    earlier,
  );
  const view = await processView(options.hostView, {
    cwd,
    home: homeDir,
    codexBin: options.codexBin,
    tmpDir: env.TMPDIR,
    runtimeDir: options.launchEnv.XDG_RUNTIME_DIR,
  });
  // loaded on the first spawn, so a session that spawns nobody never loads the app-server client
  const { Participant: ParticipantProcess } = await import('./participant.js');
  const approvals = options.approvalsFor?.(id, args.role, secrets);
  const onNotification = options.onNotification;
  const { participant, ready } = ParticipantProcess.launch(
    {
      ...(approvals !== undefined ? { approvals } : {}),
      ...(onNotification !== undefined
        ? {
            onNotification: (n: ServerNotification) => {
              onNotification(id, args.role, n);
            },
          }
        : {}),
      id,
      role: args.role,
      owner: caller.participant,
      task: args.task,
      ...(earlier !== undefined
        ? {
            resume: {
              thread: earlier.thread,
              from: `${options.previous?.session ?? ''}/${earlier.participant}`,
            },
          }
        : {}),
      cwd,
      home: homeDir,
      ...(masks !== undefined ? { masks } : {}),
      ...(view !== undefined ? { view } : {}),
      env,
      codexBin: options.codexBin,
      lifecycleWaitSec: resolved.lifecycle_wait_sec,
      servers: [
        ...Object.keys(resolved.grants),
        ...(resolved.mesh_tool_timeout_sec !== null ? [MESH_SERVER_NAME] : []),
      ],
      secrets,
      stderrLog: join(options.sessionDir, 'logs', `${id}.stderr.log`),
      onSpawn: (pid: number) => {
        options.gateway?.bindSpawned(id, pid);
      },
    },
    (p) => {
      // a participant that ended can no longer call the mesh, nor needs its auth.json copy
      if (p.finished) {
        host.tokens.revoke(id);
        void options.gateway?.closeProcess(id);
        void removeAuth(homeDir);
      }
      host.changed();
    },
  );
  host.add(id, participant);
  listed();
  host.changed();
  try {
    await ready;
  } catch (error) {
    const message = error instanceof MeshError ? error.message : describeError(error);
    throw new MeshError('failed', maskSecrets(message, secrets));
  }
  if (host.gone(caller.participant)) {
    await participant.stop();
    throw new MeshError('unavailable', 'the caller went away while the participant started');
  }
  return participant.info();
}

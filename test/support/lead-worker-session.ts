/**
 * The session of a `lead` that spawns and controls a `worker`, each granted a required echo
 * server of its own (`lead_srv`, `worker_srv`), answered by `spawnWorkerThenHold`: given `SPAWN`,
 * the lead starts a worker that stays at work until the suite ends. With `leadCredential`,
 * `lead_srv` takes `LEAD_CRED`, which credentials.env holds with that value. `startWorkingTeam`
 * runs `exec` on it and returns once the worker works and the lead has its spawn's answer.
 */
import type { ScriptedItem } from '../../src/runtime/codex/scripted-model.js';
import { useScriptedSession, type ScriptedSession } from './scripted-session.js';

import {
  echoServer,
  profileToml,
  spawnWorkerThenHold,
  startInWorld,
  waitFor,
  type HeldRequests,
  type RunningCli,
} from './world.js';

export interface LeadWorkerOptions {
  /** The value of `LEAD_CRED`, the credential of `lead_srv` (none without it). */
  readonly leadCredential?: string;
  /** What answers the lead's requests after the spawn (default: they are held too). */
  readonly after?: () => ScriptedItem[] | Promise<ScriptedItem[]>;
  /** The provider requires the base home's `auth.json`, so every process home gets a copy. */
  readonly providerAuth?: boolean;
}

/** A lead+worker session of the profile `name`, whose held requests are answered at its end. */
export function useLeadWorkerSession(
  name: string,
  held: HeldRequests,
  options: LeadWorkerOptions = {},
): ScriptedSession {
  const credential = options.leadCredential;
  return useScriptedSession(
    {
      registry:
        echoServer('lead_srv', {
          tools: 'note',
          ...(credential !== undefined ? { envVars: ['LEAD_CRED'] } : {}),
        }) + echoServer('worker_srv', { tools: 'note' }),
      profile: profileToml(name, 'lead', {
        lead: { spawn: ['worker'], control: ['worker'], grants: { lead_srv: { required: true } } },
        worker: { grants: { worker_srv: { required: true } } },
      }),
      ...(credential !== undefined ? { credentials: `LEAD_CRED=${credential}\n` } : {}),
      ...(options.providerAuth === true ? { providerAuth: true } : {}),
    },
    spawnWorkerThenHold(held, options.after),
    {
      release: () => {
        held.releaseAll();
      },
    },
  );
}

/** Starts `exec … 'SPAWN then hang'` and waits (90 s at most) until the worker is at work. */
export async function startWorkingTeam(scripted: ScriptedSession): Promise<RunningCli> {
  const supervisor = startInWorld(scripted.world, [
    'exec',
    scripted.world.packDir,
    'SPAWN then hang',
  ]);
  await waitFor(
    () =>
      scripted.model.requests.some((r) =>
        r.developerTexts.some((t) => t.includes('ROLE-WORKER')),
      ) &&
      scripted.model.requests.some(
        (r) => r.userTexts.some((t) => t.includes('SPAWN')) && r.hasToolOutput,
      ),
    90_000,
  );
  return supervisor;
}

/**
 * mmo_mesh end to end: real `codex exec` as the lead, whose scripted model calls the mesh tools;
 * the mesh server (started by Codex from the rendered config) forwards them to the session broker,
 * which starts the worker as its own `codex app-server`. The worker gets only its own grants and
 * credentials, the ungranted spawn is refused as a tool error, wait returns the worker's final
 * message, and nothing of the session is left running afterwards.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { containment } from '../../../src/foundation/process/containment.js';
import { isAlive } from '../../../src/foundation/process/process-control.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import {
  allText,
  ENV_AND_AUTH_COMMAND,
  echoServer,
  onlySession,
  parseEnvOutput,
  processesMentioning,
  profileToml,
  runInWorld,
} from '../../support/world.js';

const LEAD_CANARY = 'lead-canary-0a0a0a';
const WORKER_CANARY = 'worker-canary-0b0b0b';
const UNREFERENCED_CANARY = 'unreferenced-canary-0c0c0c';

const DECOY_MESH_TOKEN = 'decoy-mesh-token-0d0d0d';

function registry(root: string): string {
  const server = (id: string, variables: string[]): string =>
    echoServer(id, {
      tools: 'note',
      envVars: variables,
      args: [
        '--record-env',
        join(root, `${id}-env.json`),
        // the environment of the Codex process that started the server: the lead's holds the
        // lead's mesh credential, to look for it where it must not be
        '--record-parent-env',
        join(root, `${id}-codex-env.json`),
      ],
    });
  return server('lead_srv', ['LEAD_CRED']) + server('worker_srv', ['WORKER_CRED']);
}

const PROFILE = profileToml('meshtest', 'lead', {
  lead: { spawn: ['worker'], control: ['worker'], grants: { lead_srv: {} } },
  worker: { grants: { worker_srv: {} } },
  intruder: {},
});

function isRole(request: ModelRequest, marker: string): boolean {
  return request.developerTexts.some((t) => t.includes(marker));
}

function mesh(name: string, args: Record<string, unknown>): ScriptedItem {
  return { type: 'function_call', namespace: 'mcp__mmo_mesh', name, arguments: args };
}

function lastOutput(request: ModelRequest): string {
  return request.toolOutputs.at(-1)?.output ?? '';
}

function script(request: ModelRequest): ScriptedItem[] {
  const step = request.toolOutputs.length;
  if (isRole(request, 'ROLE-WORKER')) {
    return step === 0
      ? [
          {
            type: 'function_call',
            name: 'exec_command',
            arguments: { cmd: ENV_AND_AUTH_COMMAND, login: false },
          },
        ]
      : [{ type: 'message', text: 'WORKER-FINAL-MESSAGE' }];
  }
  switch (step) {
    case 0:
      return [mesh('spawn_participant', { role: 'intruder', task: 'take over' })];
    case 1:
      return [mesh('spawn_participant', { role: 'worker', task: 'WORK-TASK' })];
    case 2: {
      // the tool output is the MCP content as JSON text, so the result's quotes come escaped
      const id = /participant\\*": \\*"([a-z0-9_-]+)/.exec(lastOutput(request))?.[1] ?? 'unknown';
      return [mesh('wait_participant', { participant: id })];
    }
    case 3:
      return [mesh('list_participants', {})];
    case 4:
      return [mesh('stop_participant', { participant: 'worker-1' })];
    default:
      return [{ type: 'message', text: 'LEAD-DONE' }];
  }
}

const scripted = useScriptedSession(
  {
    registry,
    profile: PROFILE,
    credentials: `LEAD_CRED=${LEAD_CANARY}\nWORKER_CRED=${WORKER_CANARY}\n`,
  },
  script,
);

describe('mmo_mesh through real Codex', () => {
  it('spawns a granted participant with only its own grants and credentials', async () => {
    const result = await runInWorld(
      scripted.world,
      ['exec', scripted.world.packDir, 'lead the work'],
      {
        UNREFERENCED_CANARY,
        // a credential in the launch environment is not the session's: the broker's replaces it
        CODEX_MMO_MESH_TOKEN: DECOY_MESH_TOKEN,
      },
    );
    expect(scripted.model.errors).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LEAD-DONE');

    const lead = scripted.model.requests.filter((r) => isRole(r, 'ROLE-LEAD'));
    const worker = scripted.model.requests.filter((r) => isRole(r, 'ROLE-WORKER'));

    // the lead is offered the mesh tools; the worker (no spawn/control) is not
    expect(lead[0]?.offeredTools.mcp.mmo_mesh).toEqual([
      'list_participants',
      'send_message',
      'spawn_participant',
      'stop_participant',
      'wait_participant',
    ]);
    expect(lead[0]?.offeredTools.mcp.lead_srv).toEqual(['note']);
    expect(lead[0]?.offeredTools.mcp.worker_srv).toBeUndefined();
    expect(worker[0]?.offeredTools.mcp).toEqual({ worker_srv: ['note'] });
    expect(worker[0]?.userTexts.join('\n')).toContain('WORK-TASK');

    // spawning an ungranted role is a clear tool error, and the lead went on
    const refusal = lead.find((r) => r.toolOutputs.length === 1)?.toolOutputs[0]?.output ?? '';
    expect(refusal).toContain("role 'lead' may not spawn role 'intruder'");
    expect(refusal).toContain('its spawn grant allows worker');

    // wait returned the worker's final message
    const waited = lead.find((r) => r.toolOutputs.length === 3)?.toolOutputs[2]?.output ?? '';
    expect(waited).toContain('WORKER-FINAL-MESSAGE');
    expect(waited).toMatch(/timed_out\\*": false/);
    const listed = lead.find((r) => r.toolOutputs.length === 4)?.toolOutputs[3]?.output ?? '';
    expect(listed).toMatch(/participant\\*": \\*"worker-1/);
    const stopped = lead.find((r) => r.toolOutputs.length === 5)?.toolOutputs[4]?.output ?? '';
    expect(stopped).toMatch(/status\\*": \\*"stopped/);

    // the worker's server got the worker's credential only, through the gateway; the worker's
    // Codex process holds none
    const workerShell = parseEnvOutput(
      worker.find((r) => r.hasToolOutput)?.toolOutputs[0]?.output ?? '',
    );
    expect(workerShell.PATH).toBeDefined();
    expect(workerShell.WORKER_CRED).toBeUndefined();
    expect(workerShell.LEAD_CRED).toBeUndefined();
    expect(workerShell.UNREFERENCED_CANARY).toBeUndefined();
    const workerServer = JSON.parse(
      await readFile(join(scripted.world.root, 'worker_srv-env.json'), 'utf8'),
    ) as Record<string, string>;
    expect(workerServer.WORKER_CRED).toBe(WORKER_CANARY);
    expect(workerServer.LEAD_CRED).toBeUndefined();
    const leadServer = JSON.parse(
      await readFile(join(scripted.world.root, 'lead_srv-env.json'), 'utf8'),
    ) as Record<string, string>;
    expect(leadServer.LEAD_CRED).toBe(LEAD_CANARY);
    expect(leadServer.WORKER_CRED).toBeUndefined();

    // the session recorded the participant with its own private home
    const { dir, record } = await onlySession(scripted.world);
    const processes = record.processes as {
      id: string;
      kind: string;
      status: string;
      pid?: number;
    }[];
    expect(processes.map((p) => [p.id, p.kind, p.status])).toEqual([
      ['root', 'root', 'ended'],
      ['worker-1', 'participant', 'stopped'],
    ]);
    // the worker ran from its own rendered home (its servers are started by the gateway, so
    // their parent is the supervisor, not the worker's Codex)
    expect(existsSync(join(dir, 'homes', 'worker-1', 'config.toml'))).toBe(true);
    const serverParent = JSON.parse(
      await readFile(join(scripted.world.root, 'worker_srv-codex-env.json'), 'utf8'),
    ) as Record<string, string>;
    expect(serverParent.CODEX_HOME).not.toBe(join(dir, 'homes', 'worker-1'));
    // contained, a server is its namespace's first process: nothing in its view started it
    expect(serverParent.FIRST_PROCESS === '1').toBe(containment().available);
    // the shell sees neither its Codex home nor (sandbox deny) the auth.json copy in it
    expect(workerShell.CODEX_HOME).toBeUndefined();
    expect(workerShell.AUTH_COPY_PRESENT).toBeUndefined();
    // the worker's copy of auth.json went with it
    expect(existsSync(join(dir, 'homes', 'worker-1', 'auth.json'))).toBe(false);
    expect(existsSync(join(dir, 'homes', 'lead', 'auth.json'))).toBe(false);
    expect(existsSync(join(dir, 'homes', 'worker-1', '.credentials.json'))).toBe(false);

    // the lead's mesh credential is never given to a Tool MCP server. Servers are started by the
    // supervising codex-mmo process (the gateway), not by Codex: their parent holds no session
    // credential, only what the launch environment had (the decoy)
    expect(leadServer.CODEX_MMO_MESH_TOKEN).toBeUndefined();
    const leadParent = JSON.parse(
      await readFile(join(scripted.world.root, 'lead_srv-codex-env.json'), 'utf8'),
    ) as Record<string, string>;
    expect(leadParent.FIRST_PROCESS === '1').toBe(containment().available);
    expect(leadParent.CODEX_MMO_MESH_TOKEN ?? DECOY_MESH_TOKEN).toBe(DECOY_MESH_TOKEN);
    expect(leadParent.LEAD_CRED).toBeUndefined();
    expect(workerShell.CODEX_MMO_MESH_TOKEN).toBeUndefined();
    const written = [
      result.stdout,
      result.stderr,
      await readFile(join(dir, 'session.json'), 'utf8'),
      await allText(join(dir, 'logs')),
      await readFile(join(dir, 'homes', 'lead', 'config.toml'), 'utf8'),
      await readFile(join(dir, 'homes', 'worker-1', 'config.toml'), 'utf8'),
      ...scripted.model.requests.flatMap((r) => r.toolOutputs.map((o) => o.output)),
    ].join('\n');
    expect(written).not.toMatch(/CODEX_MMO_(MESH|GATEWAY)_TOKEN\w*=[A-Za-z0-9_-]{43}/);

    // nothing of the session is left running: no app-server, mesh server or MCP server
    await new Promise((r) => setTimeout(r, 300));
    for (const p of processes) if (p.pid !== undefined) expect(isAlive(p.pid)).toBe(false);
    expect(await processesMentioning(scripted.world.root)).toEqual([]);
  }, 90_000);
});

/**
 * A real `codex-mmo exec` session talks to its model through the session's model wire: the
 * root's native role and a participant spawned through mmo_mesh are offered only their grants
 * (as the provider — the scripted model — receives each request), the rendered home names the
 * wire as its provider, the wire records each thread's role and never a credential, and nothing
 * of the wire outlives the session.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { parse } from 'smol-toml';
import { beforeAll, describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { echoServer, onlySession, profileToml, runInWorld } from '../../support/world.js';

const CANARY = 'wire-credential-canary-7a7a';

const PROFILE = profileToml('wired', 'lead', {
  lead: {
    natives: ['scout'],
    spawn: ['worker'],
    control: ['worker'],
    grants: { notes: {}, files: { tools: ['read'] } },
  },
  scout: { grants: { notes: { tools: ['list'] } } },
  worker: { grants: { notes: { tools: ['add'] } } },
});

const isRole = (request: ModelRequest, marker: string): boolean =>
  request.developerTexts.some((t) => t.includes(marker)) &&
  (marker !== 'ROLE-LEAD' || !['ROLE-SCOUT', 'ROLE-WORKER'].some((m) => isRole(request, m)));

const call = (namespace: string, name: string, args: Record<string, unknown>): ScriptedItem => ({
  type: 'function_call',
  namespace,
  name,
  arguments: args,
});

function script(request: ModelRequest): ScriptedItem[] {
  if (!isRole(request, 'ROLE-LEAD')) return [{ type: 'message', text: 'CHILD-DONE' }];
  const outputs = request.toolOutputs;
  switch (outputs.length) {
    case 0:
      return [call('multi_agent_v1', 'spawn_agent', { agent_type: 'scout', message: 'look' })];
    case 1: {
      const id = (JSON.parse(outputs[0]?.output ?? '{}') as { agent_id?: string }).agent_id;
      return [call('multi_agent_v1', 'wait_agent', { targets: [id ?? ''], timeout_ms: 30_000 })];
    }
    case 2:
      return [call('mcp__mmo_mesh', 'spawn_participant', { role: 'worker', task: 'WORK' })];
    case 3: {
      const id = /participant\\*": \\*"([a-z0-9_-]+)/.exec(outputs[2]?.output ?? '')?.[1] ?? '?';
      return [call('mcp__mmo_mesh', 'wait_participant', { participant: id })];
    }
    default:
      return [{ type: 'message', text: 'LEAD-DONE' }];
  }
}

let result: Awaited<ReturnType<typeof runInWorld>>;

const scripted = useScriptedSession(
  {
    registry:
      echoServer('notes', { tools: 'list,add', envVars: ['NOTES_TOKEN'] }) +
      echoServer('files', { tools: 'read,write!' }),
    profile: PROFILE,
    credentials: `NOTES_TOKEN=${CANARY}\n`,
  },
  script,
);

beforeAll(async () => {
  result = await runInWorld(scripted.world, ['exec', scripted.world.packDir, 'lead the work']);
}, 180_000);

describe('a session through the model wire', () => {
  it('runs to the end', () => {
    expect(scripted.model.errors).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LEAD-DONE');
  });

  it('offers the root, its native role and a participant exactly their grants', () => {
    const first = (marker: string): ModelRequest | undefined =>
      scripted.model.requests.find((r) => isRole(r, marker));
    const lead = first('ROLE-LEAD')!.offeredTools.mcp;
    expect(Object.keys(lead).sort()).toEqual(['files', 'mmo_mesh', 'notes']);
    expect([lead.files, lead.notes]).toEqual([['read'], ['add', 'list']]);
    expect(first('ROLE-SCOUT')?.offeredTools.mcp).toEqual({ notes: ['list'] });
    expect(first('ROLE-WORKER')?.offeredTools.mcp).toEqual({ notes: ['add'] });
  });

  it('points every process home at the wire and records each thread, no credential', async () => {
    const { dir } = await onlySession(scripted.world);
    const homes = await readdir(join(dir, 'homes'));
    expect(homes.sort()).toEqual(['lead', 'worker-1']);
    for (const home of homes) {
      const config = parse(await readFile(join(dir, 'homes', home, 'config.toml'), 'utf8'));
      const providers = config.model_providers as Record<string, Record<string, unknown>>;
      const provider = providers[config.model_provider as string]!;
      expect(provider.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/p\/[0-9a-f]{32}$/);
      expect(provider.supports_websockets).toBe(false);
    }
    const log = await readFile(join(dir, 'logs', 'model-wire.jsonl'), 'utf8');
    const records = log
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; process: string; role: string });
    expect(
      records
        .filter((r) => r.event === 'thread')
        .map((r) => `${r.process}:${r.role}`)
        .sort(),
    ).toEqual(['root:lead', 'root:scout', 'worker-1:worker']);
    expect(log).not.toContain(CANARY);
  });
});

/**
 * Native sub-agents through the gateway, with real Codex in a real `codex-mmo exec` session:
 * Codex opens a new MCP session for a native role's first Tool MCP call, with the token of its
 * root's route; the gateway accepts it from the same Codex process, the call reaches the server,
 * and a request from outside Codex with that token is refused.
 * The gateway checks each call against its thread's role: the native role's call of a tool
 * granted only to its parent is refused before the server, the parent's own call is not.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { sessionCalls } from '../../support/session-calls.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { gatewayUrl, tryToken, type HttpAttempt } from '../../support/stolen-token.js';
import { echoServer, onlySession, profileToml, runInWorld } from '../../support/world.js';

const CANARY = 'native-gw-canary-5e5e';

const PROFILE = profileToml('natives', 'lead', {
  lead: { natives: ['scout'], grants: { notes: {} } },
  scout: { grants: { notes: { tools: ['list'] } } },
});

const isScout = (request: ModelRequest): boolean =>
  request.developerTexts.some((t) => t.includes('ROLE-SCOUT'));

const call = (namespace: string, name: string, args: Record<string, unknown>): ScriptedItem => ({
  type: 'function_call',
  namespace,
  name,
  arguments: args,
});

function script(request: ModelRequest): ScriptedItem[] {
  const outputs = request.toolOutputs;
  if (isScout(request)) {
    if (outputs.length === 0) return [call('mcp__notes', 'list', { text: 'from-scout' })];
    // a tool of the parent's grant, named without being offered (a prompt-injected model)
    if (outputs.length === 1) return [call('mcp__notes', 'add', { text: 'scout-adds' })];
    return [{ type: 'message', text: 'SCOUT-DONE' }];
  }
  switch (outputs.length) {
    case 0:
      return [call('multi_agent_v1', 'spawn_agent', { agent_type: 'scout', message: 'look' })];
    case 1: {
      const id = (JSON.parse(outputs[0]?.output ?? '{}') as { agent_id?: string }).agent_id;
      return [call('multi_agent_v1', 'wait_agent', { targets: [id ?? ''], timeout_ms: 60_000 })];
    }
    case 2:
      return [call('mcp__notes', 'add', { text: 'lead-adds' })];
    default:
      return [{ type: 'message', text: 'LEAD-DONE' }];
  }
}

let result: Awaited<ReturnType<typeof runInWorld>>;
/** What the gateway answered, outside Codex, to every token read from Codex's environment. */
const outside: HttpAttempt[] = [];

/**
 * While the session runs, after Codex has connected to its servers: read the gateway tokens out
 * of Codex's /proc (as a full-access shell could) and try each from this process.
 */
async function stealTokens(stop: () => boolean): Promise<void> {
  const tried = new Set<string>();
  while (!stop()) {
    await new Promise((r) => setTimeout(r, 150));
    // once Codex has asked its model, it has connected to its required server
    if (scripted.model.requests.length === 0) continue;
    const url = await gatewayUrl(join(scripted.world.stateDir, 'sessions'));
    if (url === undefined) continue;
    for (const pid of (await readdir('/proc')).filter((d) => /^\d+$/.test(d))) {
      const environ = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
      if (!environ.includes(`CODEX_HOME=`) || !environ.includes(scripted.world.stateDir)) continue;
      for (const m of environ.matchAll(/CODEX_MMO_GATEWAY_TOKEN_\d+=([^\0]+)/g)) {
        const token = m[1] ?? '';
        if (tried.has(token)) continue;
        tried.add(token);
        outside.push(await tryToken(url, token));
      }
    }
  }
}

const scripted = useScriptedSession(
  {
    registry: (root: string) =>
      echoServer('notes', {
        tools: 'list,add',
        envVars: ['NOTES_TOKEN'],
        args: ['--log-calls', join(root, 'notes-calls.jsonl')],
      }),
    profile: PROFILE,
    credentials: `NOTES_TOKEN=${CANARY}\n`,
  },
  script,
);

beforeAll(async () => {
  let done = false;
  const stealing = stealTokens(() => done);
  result = await runInWorld(scripted.world, ['exec', scripted.world.packDir, 'lead the work']);
  done = true;
  await stealing;
}, 240_000);

describe('native sub-agents through the gateway', () => {
  it('runs to the end', () => {
    expect(scripted.model.errors).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LEAD-DONE');
  });

  it("lets a native role call its granted tool of the parent's server", async () => {
    const scout = scripted.model.requests.filter(isScout);
    const answer = scout.flatMap((r) => r.toolOutputs).map((o) => o.output);
    expect(answer[0]).toContain('from-scout');
    expect(answer[0]).not.toContain('refused');
    const logged = await readFile(join(scripted.world.root, 'notes-calls.jsonl'), 'utf8');
    expect(logged).toContain('from-scout');
    const { dir } = await onlySession(scripted.world);
    const calls = (await readFile(join(dir, 'calls.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const made = calls.filter((c) => c.tool === 'list');
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      process: 'root',
      role: 'scout',
      server: 'notes',
      outcome: 'ok',
    });
    expect(made[0]?.parent_thread).toEqual(expect.any(String));
  });

  it("refuses at the gateway the native role's call of a tool granted only to its parent", async () => {
    const last = scripted.model.requests.filter(isScout).at(-1);
    const answer = (last?.toolOutputs ?? []).map((o) => o.output);
    expect(answer).toHaveLength(2);
    expect(answer[1]).toContain('[tool-not-granted-to-role]');
    expect(answer[1]).toContain("role 'scout'");
    const logged = await readFile(join(scripted.world.root, 'notes-calls.jsonl'), 'utf8');
    expect(logged).not.toContain('scout-adds');
    // the parent's own call of the same tool goes through
    expect(logged).toContain('lead-adds');

    const { record } = await onlySession(scripted.world);
    const calls = await sessionCalls(scripted.world, String(record.id));
    const adds = calls.filter((c) => c.tool === 'add');
    expect(adds).toHaveLength(2);
    expect(adds).toContainEqual(
      expect.objectContaining({
        role: 'scout',
        outcome: 'denied',
        reason: 'tool-not-granted-to-role',
      }),
    );
    expect(adds.find((c) => c.role === 'scout')?.parent_thread).toEqual(expect.any(String));
    expect(adds).toContainEqual(
      expect.objectContaining({ role: 'lead', outcome: 'ok', parent_thread: null }),
    );
  });

  it('refuses the token to a process other than Codex', () => {
    expect(outside.length).toBeGreaterThan(0);
    for (const attempt of outside) {
      expect(attempt.status).toBe(403);
      expect(attempt.body).toContain('[wrong-process]');
    }
  });
});

/**
 * Native roles receive exactly their grant, whatever its shape against their process root's,
 * with real Codex in a real `codex-mmo exec` session: the same, narrower, wider, disjoint (a
 * server the root lacks) and none. Each role's model calls every tool of the process — granted
 * or not, as a prompt-injected model would — and the test reads what each thread was offered
 * and what reached the servers. The root itself names a tool only a native role is granted.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { sessionCalls } from '../../support/session-calls.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { echoServer, onlySession, profileToml, runInWorld, startCli } from '../../support/world.js';

/** Each native role's grants; the lead has notes read and write. */
const SHAPES = {
  same: { notes: { tools: ['read', 'write'] } },
  narrow: { notes: { tools: ['read'] } },
  wide: { notes: { tools: ['read', 'echo', 'write'] } },
  disjoint: { notes: { tools: ['echo'] }, other: {} },
  none: {},
} as const;
type Shape = keyof typeof SHAPES;
const NATIVES = Object.keys(SHAPES) as Shape[];

const PROFILE = profileToml('shapes', 'lead', {
  lead: { natives: NATIVES, grants: { notes: { tools: ['read', 'write'] } } },
  ...Object.fromEntries(NATIVES.map((n) => [n, { grants: SHAPES[n] }])),
});

/** Every tool of the process, in the order each role's model calls them. */
const TOOLS: readonly [string, string][] = [
  ['notes', 'read'],
  ['notes', 'echo'],
  ['notes', 'write'],
  ['other', 'ping'],
];

const call = (namespace: string, name: string, args: Record<string, unknown>): ScriptedItem => ({
  type: 'function_call',
  namespace,
  name,
  arguments: args,
});

function roleOf(request: ModelRequest): Shape | 'lead' | undefined {
  const text = request.developerTexts.join('\n');
  const native = NATIVES.find((n) => text.includes(`ROLE-${n.toUpperCase()}`));
  if (native !== undefined) return native;
  return request.parentThreadId === undefined ? 'lead' : undefined;
}

function script(request: ModelRequest): ScriptedItem[] {
  const role = roleOf(request);
  const outputs = request.toolOutputs;
  if (role === undefined) return [{ type: 'message', text: 'who?' }];
  if (role !== 'lead') {
    const next = TOOLS[outputs.length];
    if (next === undefined) return [{ type: 'message', text: `${role} done` }];
    return [call(`mcp__${next[0]}`, next[1], { text: `${role}-${next[1]}` })];
  }
  // lead: spawn and wait for each native role, then name a tool only natives are granted
  const step = Math.floor(outputs.length / 2);
  const native = NATIVES[step];
  if (native !== undefined) {
    if (outputs.length % 2 === 0) {
      return [call('multi_agent_v1', 'spawn_agent', { agent_type: native, message: 'work' })];
    }
    const id = (JSON.parse(outputs.at(-1)?.output ?? '{}') as { agent_id?: string }).agent_id;
    return [call('multi_agent_v1', 'wait_agent', { targets: [id ?? ''], timeout_ms: 60_000 })];
  }
  if (outputs.length === NATIVES.length * 2) {
    return [call('mcp__notes', 'echo', { text: 'lead-echo' })];
  }
  return [{ type: 'message', text: 'LEAD-DONE' }];
}

let result: Awaited<ReturnType<typeof runInWorld>>;

const scripted = useScriptedSession(
  {
    registry: (root: string) =>
      echoServer('notes', {
        tools: 'read,echo,write',
        args: ['--log-calls', join(root, 'notes-calls.jsonl')],
      }) +
      echoServer('other', {
        tools: 'ping',
        args: ['--log-calls', join(root, 'other-calls.jsonl')],
      }),
    profile: PROFILE,
  },
  script,
);

beforeAll(async () => {
  // six threads one after another: give a loaded machine time
  result = await startCli(
    ['exec', scripted.world.packDir, 'lead the work', ...scripted.world.dirArgs],
    scripted.world.env,
    scripted.world.workDir,
    280_000,
  ).done;
}, 300_000);

/** What reached the servers: `role-tool` texts. */
async function reached(): Promise<string[]> {
  const out: string[] = [];
  for (const server of ['notes', 'other']) {
    const text = await readFile(join(scripted.world.root, `${server}-calls.jsonl`), 'utf8').catch(
      () => '',
    );
    for (const line of text.trim().split('\n').filter(Boolean)) {
      const entry = JSON.parse(line) as { arguments?: { text?: string } };
      if (entry.arguments?.text !== undefined) out.push(entry.arguments.text);
    }
  }
  return out.sort();
}

const granted = (role: Shape | 'lead'): Record<string, string[]> => {
  if (role === 'lead') return { notes: ['read', 'write'] };
  const out: Record<string, string[]> = {};
  for (const [server, grant] of Object.entries(SHAPES[role])) {
    out[server] = 'tools' in grant ? [...(grant.tools as readonly string[])].sort() : ['ping'];
  }
  return out;
};

describe('native roles receive exactly their grant, whatever its shape', () => {
  it('runs to the end', () => {
    expect(scripted.model.errors).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LEAD-DONE');
  });

  it('offers every thread exactly its role grant', () => {
    for (const role of ['lead', ...NATIVES] as const) {
      const requests = scripted.model.requests.filter((r) => roleOf(r) === role);
      expect(requests.length, role).toBeGreaterThan(0);
      for (const request of requests) {
        expect({ role, mcp: request.offeredTools.mcp }).toEqual({ role, mcp: granted(role) });
      }
    }
  });

  it('lets through to the servers exactly the granted calls', async () => {
    const expected: string[] = [];
    for (const role of NATIVES) {
      const grant = granted(role);
      for (const [server, tool] of TOOLS) {
        if (grant[server]?.includes(tool) === true) expected.push(`${role}-${tool}`);
      }
    }
    expect(await reached()).toEqual(expected.sort());
  });

  it('refuses and records every other call, the root included', async () => {
    const { record } = await onlySession(scripted.world);
    const calls = await sessionCalls(scripted.world, String(record.id));
    const refused = calls
      .filter((c) => c.outcome !== 'ok')
      .map((c) => `${String(c.role)} ${String(c.server)}.${String(c.tool)} ${String(c.reason)}`)
      .sort();
    const expected = [`lead notes.echo tool-not-granted-to-role`];
    for (const role of NATIVES) {
      const grant = granted(role);
      for (const [server, tool] of TOOLS) {
        if (grant[server]?.includes(tool) !== true) {
          expected.push(`${role} ${server}.${tool} tool-not-granted-to-role`);
        }
      }
    }
    expect(refused).toEqual(expected.sort());
    const lead = scripted.model.requests.filter((r) => roleOf(r) === 'lead').at(-1);
    expect(lead?.toolOutputs.at(-1)?.output).toContain('[tool-not-granted-to-role]');
  });
});

/**
 * Native-role grants enforced on the model wire, with real Codex: a compiled and rendered home
 * is pointed at the session's model wire, whose provider is the scripted model; the root spawns
 * its native roles (one nested, one with a server its parent lacks) and a sub-agent of Codex's
 * own default type, and every request is read as the provider receives it. A native role tries
 * a tool granted only to its parent, as a prompt-injected model would.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { beforeAll, describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { renderProcess } from '../../../src/config/compile/render-process.js';
import { writeRenderedHome } from '../../../src/config/compile/write-home.js';
import { ModelWire } from '../../../src/runtime/model-wire/model-wire.js';
import { TEST_CODEX_BIN, TEST_CODEX_SERIES } from '../../support/codex-bin.js';
import { useScriptedModel } from '../../support/scripted-model-fixture.js';
import { codexExec, compileInTemp } from '../../support/rendered-home.js';

const REPO = join(import.meta.dirname, '../../..');
const TINY = join(REPO, 'test/fixtures/compile/servers/tiny-server.mjs');
const node = JSON.stringify(process.execPath);
const tiny = (name: string, tools: string[]): string =>
  `command = ${node}\nargs = ${JSON.stringify([TINY, name, ...tools])}\ndefault_tools_approval_mode = "approve"\n`;

const REGISTRY = `schema_version = 8

[tool_mcp_servers.alpha]
transport = "stdio"
${tiny('alpha', ['one', 'two', 'three'])}enabled_tools = ["one", "two", "three"]

[tool_mcp_servers.beta]
transport = "stdio"
${tiny('beta', ['b1', 'b2'])}enabled_tools = ["b1", "b2"]

[tool_mcp_servers.gamma]
transport = "stdio"
${tiny('gamma', ['g1'])}enabled_tools = ["g1"]
`;

const PACK = `schema_version = 8
name = "wire"
root = "lead"

[agents.lead]
description = "Leads"
instructions = "ROLE-LEAD: you lead."
native_agents = ["reviewer"]
control = ["helper"]

[agents.lead.tool_mcp_servers.alpha]
enabled_tools = ["one", "two"]

[agents.lead.tool_mcp_servers.beta]

[agents.reviewer]
description = "Reviews the lead's work"
instructions = "ROLE-REVIEWER: you review."
native_agents = ["scribe"]

[agents.reviewer.tool_mcp_servers.alpha]
enabled_tools = ["one"]

[agents.reviewer.tool_mcp_servers.gamma]
required = false

[agents.scribe]
description = "Keeps notes"
instructions = "ROLE-SCRIBE: you keep notes."

[agents.scribe.tool_mcp_servers.beta]
enabled_tools = ["b2"]

[agents.helper]
description = "A participant"
instructions = "ROLE-HELPER: you help."
`;

type Agent = 'lead' | 'reviewer' | 'scribe' | 'other';

function agentOf(request: ModelRequest): Agent {
  const text = request.developerTexts.join('\n');
  if (text.includes('ROLE-REVIEWER')) return 'reviewer';
  if (text.includes('ROLE-SCRIBE')) return 'scribe';
  if (text.includes('ROLE-LEAD') && request.parentThreadId === undefined) return 'lead';
  return 'other';
}

const multi = (name: string, args: Record<string, unknown>): ScriptedItem => ({
  type: 'function_call',
  namespace: 'multi_agent_v1',
  name,
  arguments: args,
});

const agentId = (output: string | undefined): string =>
  (JSON.parse(output ?? '{}') as { agent_id?: string }).agent_id ?? '';

/**
 * lead: spawn reviewer, wait, spawn scribe (not its own native role), wait, spawn a default
 * sub-agent, wait, finish. reviewer: calls alpha.two (granted to lead only), spawns scribe (its
 * own native role), waits, finishes; the others finish at once.
 */
function script(request: ModelRequest): ScriptedItem[] {
  const agent = agentOf(request);
  if (agent === 'reviewer') {
    const outputs = request.toolOutputs;
    if (outputs.length === 0) {
      return [{ type: 'function_call', namespace: 'mcp__alpha', name: 'two', arguments: {} }];
    }
    if (outputs.length === 1) {
      return [multi('spawn_agent', { agent_type: 'scribe', message: 'nested notes' })];
    }
    if (outputs.length === 2) {
      return [
        multi('wait_agent', { targets: [agentId(outputs.at(-1)?.output)], timeout_ms: 30_000 }),
      ];
    }
  }
  if (agent !== 'lead') return [{ type: 'message', text: `${agent} done` }];
  const outputs = request.toolOutputs;
  switch (outputs.length) {
    case 0:
      return [multi('spawn_agent', { agent_type: 'reviewer', message: 'review' })];
    case 2:
      return [multi('spawn_agent', { agent_type: 'scribe', message: 'take notes' })];
    case 4:
      return [multi('spawn_agent', { message: 'help out' })];
    case 1:
    case 3:
    case 5:
      return [
        multi('wait_agent', { targets: [agentId(outputs.at(-1)?.output)], timeout_ms: 30_000 }),
      ];
    default:
      return [{ type: 'message', text: 'lead done' }];
  }
}

// Codex runs on a rendered home here, not through the built CLI
const fixture = useScriptedModel(script, { needsBuild: false });
let wire: ModelWire;
let exec: { code: number | null; stdout: string; stderr: string };
let config: Record<string, unknown>;
let log: string;

beforeAll(async () => {
  const compiled = await compileInTemp({
    registry: REGISTRY,
    pack: PACK,
    modelUrl: fixture.model.baseUrl,
  });
  expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const { root, stored, plan } = compiled;
  log = join(root, 'model-wire.jsonl');
  wire = await ModelWire.start({
    profile: stored.snapshot.profile,
    plan,
    base: stored.snapshot.base,
    logFile: log,
  });
  const rendered = renderProcess(stored.snapshot, plan, 'lead', {
    home: root,
    // a real stdio MCP server stands in for the mesh, which a session launches
    mesh: { command: process.execPath, args: [TINY, 'mmo_mesh', 'list_participants'] },
  });
  const codexHome = join(root, 'codex-home');
  const wired = wire.home(rendered, 'root');
  await writeRenderedHome(wired.home, codexHome);
  config = parse(await readFile(join(codexHome, 'config.toml'), 'utf8'));
  exec = await codexExec(TEST_CODEX_BIN, root, codexHome, {
    env: { ...wired.env },
    timeoutMs: 90_000,
  });
  await wire.close();
}, 120_000);

const requestsOf = (agent: Agent): ModelRequest[] =>
  fixture.model.requests.filter((r) => agentOf(r) === agent);

describe(`the model wire on real Codex ${TEST_CODEX_SERIES}`, () => {
  it('runs the whole scripted session through the wire, over HTTP', () => {
    const provider = (config.model_providers as Record<string, Record<string, unknown>>)[
      config.model_provider as string
    ]!;
    expect(provider.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/p\/[0-9a-f]{32}$/);
    expect({
      code: exec.code,
      modelErrors: fixture.model.errors,
      finished: exec.stdout.includes('lead done'),
      // alpha.two, spawn, wait, done (0.149 adds one when the scribe's turn ends)
      reviewer: requestsOf('reviewer').length >= 4,
      scribes: new Set(requestsOf('scribe').map((r) => r.threadId)).size,
      scribe: requestsOf('scribe').length > 0,
      other: requestsOf('other').length > 0,
      websockets: wire.records.filter((r) => r.event === 'websocket-refused').length,
    }).toEqual({
      code: 0,
      modelErrors: [],
      finished: true,
      reviewer: true,
      scribes: 1,
      scribe: true,
      other: true,
      websockets: 0,
    });
  });

  it('offers the root role exactly its grants', () => {
    expect(requestsOf('lead')[0]!.offeredTools.mcp).toEqual({
      alpha: ['one', 'two'],
      beta: ['b1', 'b2'],
      mmo_mesh: ['list_participants'],
    });
  });

  it('offers a native role only its grants: no parent tools, no mmo_mesh', () => {
    for (const request of requestsOf('reviewer')) {
      // gamma is granted to the reviewer only: the process enables it (the union of its roles'
      // grants) and the wire keeps it from every other role
      expect(request.offeredTools.mcp).toEqual({ alpha: ['one'], gamma: ['g1'] });
    }
  });

  it('offers a nested native role only its grants', () => {
    for (const request of requestsOf('scribe')) {
      expect(request.offeredTools.mcp).toEqual({ beta: ['b2'] });
    }
  });

  it('lets a role spawn only its own native roles', () => {
    // Codex lists every native role of the process; the wire leaves each role its own
    const builtIn = (types: readonly string[]): string[] =>
      types.filter((t) => !['reviewer', 'scribe', 'lead'].includes(t));
    const lead = requestsOf('lead')[0]!.offeredTools.agentTypes;
    expect(lead).toContain('reviewer');
    expect(lead).not.toContain('scribe');
    const reviewer = requestsOf('reviewer')[0]!.offeredTools.agentTypes;
    expect(reviewer).toContain('scribe');
    expect(reviewer).not.toContain('reviewer');
    // Codex's own agent types stay, on both
    expect(builtIn(reviewer)).toEqual(builtIn(lead));
    expect(builtIn(lead)).toContain('default');
    // the scribe the reviewer started is the reviewer's child
    const scribe = requestsOf('scribe')[0]!;
    expect(scribe.parentThreadId).toBe(requestsOf('reviewer')[0]!.threadId);
    // the scribe the lead started is refused: none of its requests reached the provider
    const refused = wire.records.filter((r) => r.event === 'refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      parent_thread: requestsOf('lead')[0]!.threadId,
      role: null,
      reason:
        'role lead may not start a sub-agent of role scribe: its native_agents allow reviewer',
    });
    expect(fixture.model.requests.filter((r) => r.threadId === refused[0]!.thread)).toEqual([]);
  });

  it('renders the nesting depth, so the nested native role can be started at all', () => {
    expect((config.agents as Record<string, unknown>).max_depth).toBe(2);
  });

  it('strips every MCP server from a sub-agent it cannot attribute, and records it', () => {
    for (const request of requestsOf('other')) expect(request.offeredTools.mcp).toEqual({});
    const unattributed = wire.records.filter((r) => r.event === 'unattributed');
    expect(unattributed.length).toBeGreaterThan(0);
    expect(unattributed[0]!.reason).toBe('a sub-agent carries the instructions of no native role');
    expect(unattributed[0]!.removed).toEqual(['alpha', 'beta', 'gamma', 'mmo_mesh']);
  });

  it('knows the role of every thread, for the gateway', () => {
    const roleOf = (r: ModelRequest): string | null | undefined =>
      wire.roleOfThread(r.threadId!)?.role;
    expect(roleOf(requestsOf('lead')[0]!)).toBe('lead');
    expect(roleOf(requestsOf('reviewer')[0]!)).toBe('reviewer');
    expect(roleOf(requestsOf('scribe')[0]!)).toBe('scribe');
    expect(roleOf(requestsOf('other')[0]!)).toBeNull();
    const reviewer = wire.roleOfThread(requestsOf('reviewer')[0]!.threadId!);
    expect(reviewer?.parentThread).toBe(requestsOf('lead')[0]!.threadId);
  });

  it('turns away a parent tool the native role names without being offered it', () => {
    // the reviewer was not offered alpha.two; the model named it anyway. Codex would run it (the
    // process has it, measured before the wire turned such calls away); renamed in the stream,
    // Codex answers it as unsupported and it never runs, nor is anyone asked to approve it
    const output = requestsOf('reviewer')[1]!.toolOutputs[0]?.output ?? '';
    expect(output).not.toContain('alpha.two called');
    expect(output).toContain('[tool-not-granted-to-role]');
  });

  it('records each thread once, never a header or credential', async () => {
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    const threads = lines.map((l) => JSON.parse(l) as { event: string; role: string | null });
    expect(threads.filter((t) => t.event === 'thread').map((t) => t.role)).toEqual(
      expect.arrayContaining(['lead', 'reviewer', 'scribe']),
    );
    expect(lines.join('\n')).not.toMatch(/authorization|user-agent|turn-metadata/i);
  });
});

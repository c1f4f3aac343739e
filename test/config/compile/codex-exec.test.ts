/**
 * The oracle for "which tools does a role really get": a scripted local Responses model drives
 * real `codex exec` on a compiled and rendered home with real stdio MCP servers. The root role's
 * request must offer exactly its granted servers and tools, and every native role must load (each
 * offered as a `spawn_agent` agent_type). Then the root spawns each native role and the child's
 * request is recorded: what each supported Codex really gives a native role is measured here, and the
 * profile doctor's `native-role-not-isolated` statement is checked against the measurement.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { renderProcess } from '../../../src/config/compile/render-process.js';
import { writeRenderedHome } from '../../../src/config/compile/write-home.js';
import {
  nativeIsolationDiagnostics,
  nativeRoleDeltas,
} from '../../../src/config/profile/native-isolation.js';
import type { ResolvedPlan } from '../../../src/config/profile/types.js';
import type { StoredSnapshot } from '../../../src/config/snapshot/types.js';
import { codexFacts } from '../../../src/config/codex/codex-versions.js';
import { TEST_CODEX_SERIES } from '../../support/codex-bin.js';
import { useScriptedModel } from '../../support/scripted-model-fixture.js';
import { codexExec, compileInTemp } from '../../support/rendered-home.js';
import { CODEX_BIN, FIXTURES, REPO } from '../../support/load-fixture.js';

/** The version table's row for the Codex this run measures. */
const MEASURED = codexFacts(`${TEST_CODEX_SERIES}.0`);
const TINY = join(FIXTURES, 'servers/tiny-server.mjs');
const EVERYTHING = join(REPO, 'node_modules/.bin/mcp-server-everything');
const node = JSON.stringify(process.execPath);
const tiny = (name: string, tools: string[]): string =>
  `command = ${node}\nargs = ${JSON.stringify([TINY, name, ...tools])}\n`;

const REGISTRY = `schema_version = 8

[tool_mcp_servers.alpha]
transport = "stdio"
${tiny('alpha', ['one', 'two', 'three'])}enabled_tools = ["one", "two", "three"]
default_tools_approval_mode = "approve"
env_vars = ["ALPHA_TOKEN"]

[tool_mcp_servers.beta]
transport = "stdio"
${tiny('beta', ['b1', 'b2'])}enabled_tools = ["b1", "b2"]
default_tools_approval_mode = "approve"

[tool_mcp_servers.gamma]
transport = "stdio"
${tiny('gamma', ['g1'])}enabled_tools = ["g1"]
default_tools_approval_mode = "approve"

[tool_mcp_servers.everything]
transport = "stdio"
command = ${JSON.stringify(EVERYTHING)}
args = ["stdio"]
enabled_tools = ["echo", "get-sum", "get-env"]
default_tools_approval_mode = "writes"
startup_timeout_sec = 20
`;

const PACK = `schema_version = 8
name = "live"
root = "lead"

[agents.lead]
description = "Leads"
instructions = "ROLE-LEAD: you lead."
native_agents = ["reviewer"]
control = ["helper"]

[agents.lead.tool_mcp_servers.alpha]
enabled_tools = ["one", "two"]

[agents.lead.tool_mcp_servers.everything]
enabled_tools = ["echo", "get-sum"]

[agents.reviewer]
description = "Reviews the lead's work"
instructions = "ROLE-REVIEWER: you review."
native_agents = ["scribe"]

[agents.reviewer.tool_mcp_servers.beta]
enabled_tools = ["b1"]
required = false

[agents.scribe]
description = "Keeps notes"
instructions = "ROLE-SCRIBE: you keep notes."

[agents.scribe.tool_mcp_servers.gamma]
required = false

[agents.helper]
description = "A participant"
instructions = "ROLE-HELPER: you help."
`;

/** The name Codex shows the model for an MCP tool (characters outside [A-Za-z0-9_] become `_`). */
const modelName = (tool: string): string => tool.replace(/[^A-Za-z0-9_]/g, '_');

type Agent = 'lead' | 'reviewer' | 'scribe' | 'other';

function agentOf(request: ModelRequest): Agent {
  const text = request.developerTexts.join('\n');
  if (text.includes('ROLE-REVIEWER')) return 'reviewer';
  if (text.includes('ROLE-SCRIBE')) return 'scribe';
  if (text.includes('ROLE-LEAD')) return 'lead';
  return 'other';
}

/** lead: spawn reviewer, wait, spawn scribe, wait, finish. Children answer at once. */
function script(request: ModelRequest): ScriptedItem[] {
  const agent = agentOf(request);
  if (agent !== 'lead') return [{ type: 'message', text: `${agent} done` }];
  const outputs = request.toolOutputs;
  const spawn = (role: string): ScriptedItem => ({
    type: 'function_call',
    namespace: 'multi_agent_v1',
    name: 'spawn_agent',
    arguments: { agent_type: role, message: `please act as ${role}` },
  });
  const wait = (output: string | undefined): ScriptedItem => ({
    type: 'function_call',
    namespace: 'multi_agent_v1',
    name: 'wait_agent',
    arguments: {
      targets: [(JSON.parse(output ?? '{}') as { agent_id?: string }).agent_id ?? ''],
      timeout_ms: 30_000,
    },
  });
  switch (outputs.length) {
    case 0:
      return [spawn('reviewer')];
    case 1:
      return [wait(outputs[0]?.output)];
    case 2:
      return [spawn('scribe')];
    case 3:
      return [wait(outputs[2]?.output)];
    default:
      return [{ type: 'message', text: 'lead done' }];
  }
}

// Codex runs on a rendered home here, not through the built CLI
const fixture = useScriptedModel(script, { needsBuild: false });
let stored: StoredSnapshot;
let plan: ResolvedPlan;
let exec: { code: number | null; stdout: string; stderr: string };
let homeFiles: string[];

beforeAll(async () => {
  const compiled = await compileInTemp({
    registry: REGISTRY,
    pack: PACK,
    modelUrl: fixture.model.baseUrl,
  });
  expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const root = compiled.root;
  stored = compiled.stored;
  plan = compiled.plan;

  const codexHome = join(root, 'codex-home');
  // measured without the model wire: the rendering for a provider the wire cannot front (the
  // root narrowed in config.toml), where Codex alone decides what a native role gets
  const rendered = renderProcess(stored.snapshot, plan, 'lead', {
    home: root,
    rolesOnWire: false,
    // a real stdio MCP server stands in for the mesh, which a session launches
    mesh: { command: process.execPath, args: [TINY, 'mmo_mesh', 'list_participants'] },
  });
  homeFiles = [...rendered.files.keys()];
  await writeRenderedHome(rendered, codexHome);
  exec = await codexExec(CODEX_BIN, root, codexHome, {
    env: { ALPHA_TOKEN: 'x' },
    timeoutMs: 60_000,
  });
}, 90_000);

const requestsOf = (agent: Agent): ModelRequest[] =>
  fixture.model.requests.filter((r) => agentOf(r) === agent);

describe('real codex exec on a rendered home', () => {
  it('runs the whole scripted session and loads every rendered role', () => {
    expect(homeFiles).toEqual(['config.toml', 'agents/reviewer.toml', 'agents/scribe.toml']);
    const outcome = {
      code: exec.code,
      modelErrors: fixture.model.errors,
      malformed: /malformed/i.test(exec.stderr),
      finished: exec.stdout.includes('lead done'),
      // a child's completion may prompt Codex to give the lead one more turn
      lead: requestsOf('lead').length >= 5,
      reviewer: requestsOf('reviewer').length > 0,
      scribe: requestsOf('scribe').length > 0,
      other: requestsOf('other').length,
    };
    expect(outcome, `codex exec stderr:\n${exec.stderr.slice(-3000)}`).toEqual({
      code: 0,
      modelErrors: [],
      malformed: false,
      finished: true,
      lead: true,
      reviewer: true,
      scribe: true,
      other: 0,
    });
  });

  it('offers the root role exactly its granted servers and tools', () => {
    const first = requestsOf('lead')[0]!;
    // Codex offers an MCP tool under a model-safe name: `get-sum` is called `get_sum`
    expect(first.offeredTools.mcp).toEqual({
      alpha: ['one', 'two'],
      everything: ['echo', 'get_sum'],
      mmo_mesh: ['list_participants'],
    });
  });

  it('offers every rendered native role as a spawn_agent agent_type', () => {
    const types = requestsOf('lead')[0]!.offeredTools.agentTypes;
    expect(types).toEqual(expect.arrayContaining(['reviewer', 'scribe']));
    expect(types).not.toContain('helper');
    expect(types).not.toContain('lead');
  });

  it("applies each native role's own instructions", () => {
    expect(requestsOf('reviewer')[0]!.developerTexts.join('\n')).toContain(
      'ROLE-REVIEWER: you review.',
    );
    expect(requestsOf('scribe')[0]!.developerTexts.join('\n')).toContain(
      'ROLE-SCRIBE: you keep notes.',
    );
  });

  it('measures: a native role is offered its parent process’s MCP tools, not its own grants', () => {
    const lead = requestsOf('lead')[0]!.offeredTools.mcp;
    const reviewer = requestsOf('reviewer')[0]!.offeredTools.mcp;
    const scribe = requestsOf('scribe')[0]!.offeredTools.mcp;
    // every supported Codex: the children get the root's servers and filters (the mesh included) …
    expect(reviewer).toEqual(lead);
    expect(scribe).toEqual(lead);
    // … and not the servers their role files enable
    expect(reviewer.beta).toBeUndefined();
    expect(scribe.gamma).toBeUndefined();
    // the parent's mmo_mesh tools included, though neither role has spawn or control
    expect(reviewer.mmo_mesh).toEqual(['list_participants']);
  });

  it('measures: the root may spawn every native role of its process, and a sub-agent below max_depth may spawn', () => {
    // scribe is reachable only through reviewer's native_agents, yet Codex let the root spawn
    // it (only the model wire confines a role to its own native_agents)
    const afterSecondSpawn = requestsOf('lead').find((r) => r.toolOutputs.length === 3);
    expect(afterSecondSpawn?.toolOutputs[2]?.output).toMatch(/"agent_id"/);
    // the nesting is two deep, so the home says max_depth = 2 and sub-agents at depth 1 are
    // offered the spawn tools (Codex's default, 1, offers them none)
    for (const agent of ['reviewer', 'scribe'] as const) {
      const functions = requestsOf(agent)[0]!.offeredTools.functions;
      expect(functions).toContain('multi_agent_v1.spawn_agent');
    }
  });

  it("agrees with the doctor's native-role-not-isolated statement", () => {
    const profile = stored.snapshot.profile;
    const measured: Record<string, Record<string, string[]>> = {
      reviewer: requestsOf('reviewer')[0]!.offeredTools.mcp,
      scribe: requestsOf('scribe')[0]!.offeredTools.mcp,
    };
    const deltas = nativeRoleDeltas(profile, plan);
    expect(deltas.map((d) => d.role).sort()).toEqual(['reviewer', 'scribe']);
    const pairs = (tools: Record<string, readonly string[]>): string[] =>
      Object.entries(tools).flatMap(([s, ts]) => ts.map((t) => `${s}:${t}`));
    for (const delta of deltas) {
      const got = measured[delta.role]!;
      // Tool MCP servers: what the doctor says the role gains and loses is what it really
      // gains and loses against its own grants
      const granted = plan.roles[delta.role]!.grants;
      const measuredPairs = pairs(got).filter((p) => !p.startsWith('mmo_mesh:'));
      const grantedPairs = pairs(
        Object.fromEntries(
          Object.entries(granted).map(([s, g]) => [s, g.enabled_tools.map(modelName)]),
        ),
      );
      const gained = measuredPairs.filter((p) => !grantedPairs.includes(p)).sort();
      const lost = grantedPairs.filter((p) => !measuredPairs.includes(p)).sort();
      const flatten = (groups: typeof delta.gains): string[] =>
        groups.flatMap((g) => g.tools.map((t) => `${g.server}:${modelName(t)}`)).sort();
      expect(flatten(delta.gains)).toEqual(gained);
      expect(flatten(delta.loses)).toEqual(lost);
      // mmo_mesh: the role has the mesh tools exactly when the doctor says it reaches the mesh
      // (the root's lists when they differ from its own, otherwise its own)
      const own = profile.agents[delta.role]!;
      const claimsMesh =
        delta.mesh !== undefined
          ? delta.mesh.effective !== null
          : own.spawn.length + own.control.length > 0;
      expect({ role: delta.role, mesh: got.mmo_mesh !== undefined }).toEqual({
        role: delta.role,
        mesh: claimsMesh,
      });
    }
    // neither native role has spawn/control of its own, yet both are offered the lead's mesh
    expect(deltas.map((d) => d.mesh?.effective)).toEqual([
      { spawn: [], control: ['helper'] },
      { spawn: [], control: ['helper'] },
    ]);
    const warnings = nativeIsolationDiagnostics(profile, plan, undefined, MEASURED).filter(
      (d) => d.code === 'native-role-not-isolated',
    );
    expect(warnings.map((d) => d.path).sort()).toEqual([
      'agents.lead.native_agents[0]',
      'agents.reviewer.native_agents[0]',
    ]);
    expect(warnings.every((d) => d.severity === 'warning')).toBe(true);
    for (const warning of warnings) {
      expect(warning.message).toContain(
        `Codex ${TEST_CODEX_SERIES} gives a native role its parent`,
      );
      expect(warning.message).toContain("GAIN mmo_mesh with `lead`'s participant grants");
    }
    const reviewerWarning = warnings.find((d) => d.message.includes('`reviewer`'))!;
    // the lead's tools the reviewer was not granted, as Codex names them to the model
    expect(reviewerWarning.message).toContain('GAIN alpha:one, alpha:two, everything:echo');
    expect(reviewerWarning.message).toContain('LOSE beta:b1');
  });
});

/**
 * The pure parts of the model wire: which provider is fronted and how a home is pointed at the
 * wire, how a request's tools are narrowed to a role, and how threads are attributed.
 */
import { describe, expect, it } from 'vitest';

import { offeredToolsOf } from '../../../src/runtime/codex/scripted-model.js';
import { narrowAgentTypes } from '../../../src/runtime/model-wire/agent-types.js';
import { filterTools } from '../../../src/runtime/model-wire/filter-tools.js';
import { describeMeshFor } from '../../../src/runtime/model-wire/mesh-offer.js';
import {
  CHATGPT_BACKEND_BASE,
  OPENAI_API_BASE,
  WIRE_OPENAI_PROVIDER,
  WIRE_TOKEN_ENV,
  WIRE_TOKEN_HEADER,
  needsAuthFile,
  pointAtWire,
  providerRoute,
  upstreamOf,
} from '../../../src/config/compile/provider-route.js';
import {
  reachesResources,
  type WireProcess,
  type WireRole,
} from '../../../src/config/compile/role-grants.js';
import { ThreadRoles, attribute } from '../../../src/runtime/model-wire/thread-roles.js';
import { wireIdentity } from '../../../src/runtime/model-wire/wire-request.js';

const role = (
  name: string,
  tools: Record<string, string[]>,
  mesh = false,
  native: string[] = [],
): WireRole => ({
  role: name,
  instructions: `I am ${name}.`,
  tools,
  mesh,
  spawn: mesh ? ['helper'] : [],
  control: [],
  native,
});

const PROCESS: WireProcess = {
  root: 'lead',
  roles: {
    lead: role('lead', { alpha: ['one', 'two'], 'web-search': ['get_sum'] }, true, [
      'reviewer',
      'twin',
    ]),
    reviewer: role('reviewer', { alpha: ['one'] }),
    twin: { ...role('twin', { alpha: ['one'] }), instructions: 'I am reviewer.' },
  },
  servers: ['alpha', 'web-search', 'mmo_mesh'],
};

const ns = (name: string, tools: string[]): Record<string, unknown> => ({
  type: 'namespace',
  name,
  tools: tools.map((t) => ({ type: 'function', name: t })),
});

const TOOLS = [
  { type: 'function', name: 'exec_command' },
  ns('mcp__alpha', ['one', 'two']),
  ns('mcp__web_search', ['get_sum']),
  ns('mcp__mmo_mesh', ['spawn_participant']),
  ns('mcp__codex_apps', ['x']),
  { type: 'function', name: 'mcp__alpha__two' },
  ns('multi_agent_v1', ['spawn_agent']),
];

describe('filterTools', () => {
  it('keeps a role exactly its grants, Codex tools and mmo_mesh only with spawn/control', () => {
    const lead = filterTools(TOOLS, PROCESS.roles.lead, PROCESS.servers);
    expect(lead.kept).toEqual({
      alpha: ['one', 'two'],
      'web-search': ['get_sum'],
      mmo_mesh: ['spawn_participant'],
    });
    expect(lead.removed).toEqual(['codex_apps']);
    const reviewer = filterTools(TOOLS, PROCESS.roles.reviewer, PROCESS.servers);
    expect(reviewer.kept).toEqual({ alpha: ['one'] });
    expect(reviewer.removed).toEqual([
      'alpha.two',
      'web-search',
      'mmo_mesh',
      'codex_apps',
      'alpha.two',
    ]);
    expect(reviewer.tools).toEqual([
      { type: 'function', name: 'exec_command' },
      ns('mcp__alpha', ['one']),
      ns('multi_agent_v1', ['spawn_agent']),
    ]);
  });

  it('keeps the generic resource functions only for a role that can reach some server', () => {
    const generic = [
      { type: 'function', name: 'list_mcp_resources' },
      { type: 'function', name: 'list_mcp_resource_templates' },
      { type: 'function', name: 'read_mcp_resource' },
    ];
    const tools = [...TOOLS, ...generic];
    // alpha is granted to every role of the process: each of them reaches its resources
    for (const name of ['lead', 'reviewer', 'twin'] as const) {
      const wire = PROCESS.roles[name];
      if (wire === undefined) throw new Error(name);
      expect(reachesResources(PROCESS, wire)).toBe(true);
      expect(filterTools(tools, wire, PROCESS.servers, true).tools).toEqual(
        expect.arrayContaining(generic),
      );
    }
    const mixed: WireProcess = {
      ...PROCESS,
      roles: { ...PROCESS.roles, scout: role('scout', {}) },
    };
    const lead = mixed.roles.lead;
    const scout = mixed.roles.scout;
    if (lead === undefined || scout === undefined) throw new Error('roles');
    expect(reachesResources(mixed, lead)).toBe(false);
    expect(reachesResources(mixed, scout)).toBe(false);
    const narrowed = filterTools(tools, scout, mixed.servers, false);
    expect(narrowed.functionsRemoved).toEqual(generic.map((g) => g.name));
    expect(narrowed.tools).not.toEqual(expect.arrayContaining([generic[0]]));
    expect(filterTools(tools, undefined, PROCESS.servers, true).functionsRemoved).toHaveLength(3);
  });

  it('strips every MCP server when the request has no role', () => {
    const none = filterTools(TOOLS, undefined, PROCESS.servers);
    expect(none.kept).toEqual({});
    expect(none.tools).toEqual([
      { type: 'function', name: 'exec_command' },
      ns('multi_agent_v1', ['spawn_agent']),
    ]);
  });
});

describe('attribution', () => {
  const identity = (
    thread: string,
    developer: string[],
    parent?: string,
  ): ReturnType<typeof wireIdentity> =>
    wireIdentity(
      {
        'thread-id': thread,
        ...(parent !== undefined ? { 'x-codex-parent-thread-id': parent } : {}),
      },
      {
        input: [
          {
            type: 'message',
            role: 'developer',
            content: developer.map((text) => ({ type: 'input_text', text })),
          },
        ],
      },
    );

  it('reads both header and turn-metadata forms of the thread identity', () => {
    const id = wireIdentity(
      { 'x-codex-turn-metadata': JSON.stringify({ thread_id: 't2', parent_thread_id: 't1' }) },
      { instructions: 'base', input: [{ type: 'message', role: 'developer', content: 'x' }] },
    );
    expect(id).toEqual({
      threadId: 't2',
      parentThreadId: 't1',
      subagent: undefined,
      developerTexts: ['x'],
    });
  });

  it('attributes the root by its instructions and children by theirs, exactly', () => {
    const threads = new ThreadRoles();
    expect(
      threads.resolve('root', PROCESS, identity('t1', ['base', 'I am lead.'])).entry.role,
    ).toBe('lead');
    // a child whose text only contains a role's instructions is not that role
    const near = threads.resolve('root', PROCESS, identity('t2', ['I am lead. and more'], 't1'));
    expect(near.attribution).toEqual({
      ok: false,
      reason: 'a sub-agent carries the instructions of no native role',
    });
    // two roles rendered with the same text but granted the same: either is right
    expect(
      threads.resolve('root', PROCESS, identity('t3', ['I am reviewer.'], 't1')).entry.role,
    ).toBe('reviewer');
    // a thread keeps its first attribution
    expect(
      threads.resolve('root', PROCESS, identity('t2', ['I am reviewer.'], 't1')).entry.role,
    ).toBeNull();
    // another process cannot use a thread it does not own
    expect(
      threads.resolve('helper-1', PROCESS, identity('t1', ['I am lead.'])).attribution.ok,
    ).toBe(false);
    expect(threads.roleOfThread('t3')).toBe('reviewer');
  });

  it('fails closed on an unknown parent, a missing thread, or roles granted differently', () => {
    expect(attribute(PROCESS, identity('t9', ['I am reviewer.'], 'nope'), undefined)).toEqual({
      ok: false,
      reason: 'parent thread nope is not known',
    });
    const threads = new ThreadRoles();
    const noThread = threads.resolve('root', PROCESS, wireIdentity({}, {}));
    expect(noThread.attribution.ok).toBe(false);
    const split: WireProcess = {
      ...PROCESS,
      roles: { ...PROCESS.roles, twin: { ...PROCESS.roles.twin!, tools: { alpha: ['two'] } } },
    };
    expect(attribute(split, identity('t4', ['I am reviewer.'], 't1'), 'lead')).toEqual({
      ok: false,
      reason:
        'a sub-agent carries the instructions of several native roles (reviewer, twin) that are granted differently',
    });
  });
});

describe('providerRoute and pointAtWire', () => {
  it('fronts a custom Responses provider by rewriting its base_url, adding the wire token', () => {
    const base = {
      model_provider: 'corp',
      model_providers: {
        corp: {
          name: 'Corp',
          base_url: 'https://llm.corp/v1',
          env_key: 'CORP_KEY',
          env_http_headers: { 'x-corp-team': 'CORP_TEAM' },
        },
      },
    };
    const route = providerRoute(base);
    expect(route).toEqual({ kind: 'custom', provider: 'corp', upstream: 'https://llm.corp/v1' });
    expect(pointAtWire(base, route, 'http://127.0.0.1:1/p/k')).toEqual({
      model_provider: 'corp',
      model_providers: {
        corp: {
          name: 'Corp',
          base_url: 'http://127.0.0.1:1/p/k',
          env_key: 'CORP_KEY',
          supports_websockets: false,
          env_http_headers: { 'x-corp-team': 'CORP_TEAM', [WIRE_TOKEN_HEADER]: WIRE_TOKEN_ENV },
        },
      },
      features: { enable_request_compression: false },
    });
    // the token variable is codex-mmo's, so no shell ever sees it
    expect(WIRE_TOKEN_ENV).toMatch(/^CODEX_MMO_/);
  });

  it('knows which providers need a copy of auth.json', () => {
    expect(needsAuthFile({})).toBe(true);
    expect(needsAuthFile({ model_provider: 'ollama' })).toBe(true);
    const custom = (extra: object) => ({
      model_provider: 'c',
      model_providers: { c: { base_url: 'https://c/v1', ...extra } },
    });
    expect(needsAuthFile(custom({}))).toBe(false);
    expect(needsAuthFile(custom({ env_key: 'C_KEY' }))).toBe(false);
    expect(needsAuthFile(custom({ requires_openai_auth: true }))).toBe(true);
  });

  it('replaces the built-in openai provider, routing API-key and ChatGPT requests', () => {
    const route = providerRoute({ model: 'gpt-5' });
    expect(route).toEqual({ kind: 'openai', api: OPENAI_API_BASE, chatgpt: CHATGPT_BACKEND_BASE });
    expect(upstreamOf(route, {})).toBe(OPENAI_API_BASE);
    expect(upstreamOf(route, { 'chatgpt-account-id': 'a' })).toBe(CHATGPT_BACKEND_BASE);
    const table = pointAtWire({ openai_base_url: 'https://x/v1' }, route, 'http://w');
    expect(table.openai_base_url).toBeUndefined();
    expect(table.model_provider).toBe(WIRE_OPENAI_PROVIDER);
    expect(providerRoute({ openai_base_url: 'https://x/v1' })).toMatchObject({
      api: 'https://x/v1',
      chatgpt: 'https://x/v1',
    });
  });

  it('says why a provider cannot be fronted', () => {
    expect(providerRoute({ model_provider: 'ollama' }).kind).toBe('unfrontable');
    expect(providerRoute({ model_provider: 'x' })).toMatchObject({
      reason: 'model_provider `x` has no [model_providers.x] table',
    });
    expect(
      providerRoute({
        model_provider: 'b',
        model_providers: { b: { base_url: 'https://b', aws: { region: 'r' } } },
      }),
    ).toMatchObject({ kind: 'unfrontable' });
    expect(
      providerRoute({
        model_provider: 'c',
        model_providers: { c: { base_url: 'https://c', wire_api: 'chat' } },
      }),
    ).toMatchObject({ kind: 'unfrontable' });
  });
});

describe('a role offered only its own native roles and mesh lists', () => {
  /** The `spawn_agent` tool as Codex 0.149 and 0.171 both send it (agent types in the text). */
  const spawnAgent = (names: string[]): Record<string, unknown> => ({
    type: 'namespace',
    name: 'multi_agent_v1',
    tools: [
      {
        type: 'function',
        name: 'spawn_agent',
        description: 'Spawn a sub-agent.',
        parameters: {
          type: 'object',
          properties: {
            agent_type: {
              type: 'string',
              description: `Agent type override.\nAvailable roles:\n${names.map((n) => `${n}: {\nAbout ${n}.\nMore.\n}`).join('\n')}`,
            },
            message: { type: 'string' },
          },
        },
      },
    ],
  });
  const NESTED: WireProcess = {
    root: 'lead',
    roles: {
      lead: role('lead', { alpha: ['one'] }, true, ['reviewer']),
      reviewer: role('reviewer', { alpha: ['one'] }, false, ['scribe']),
      scribe: role('scribe', {}),
    },
    servers: ['alpha', 'mmo_mesh'],
  };

  it('lists in spawn_agent only the calling role’s native_agents and Codex’s own types', () => {
    const tools = [spawnAgent(['reviewer', 'scribe', 'default', 'explorer'])];
    const lead = narrowAgentTypes(tools, NESTED.roles.lead, NESTED);
    expect(lead.dropped).toEqual(['scribe']);
    expect(offeredToolsOf({ tools: lead.tools }).agentTypes).toEqual([
      'default',
      'explorer',
      'reviewer',
    ]);
    const reviewer = narrowAgentTypes(tools, NESTED.roles.reviewer, NESTED);
    expect(offeredToolsOf({ tools: reviewer.tools }).agentTypes).toEqual([
      'default',
      'explorer',
      'scribe',
    ]);
    // the text of the remaining blocks is kept whole
    expect(JSON.stringify(reviewer.tools)).toContain('scribe: {\\nAbout scribe.\\nMore.\\n}');
    expect(JSON.stringify(reviewer.tools)).not.toContain('About reviewer');
    // an unattributed thread is offered none of the process's roles
    const none = narrowAgentTypes(tools, undefined, NESTED);
    expect(offeredToolsOf({ tools: none.tools }).agentTypes).toEqual(['default', 'explorer']);
  });

  it('narrows an agent_type enum too', () => {
    const tools = [
      {
        type: 'function',
        name: 'spawn_agent',
        parameters: {
          type: 'object',
          properties: { agent_type: { type: 'string', enum: ['reviewer', 'scribe', 'default'] } },
        },
      },
    ];
    const lead = narrowAgentTypes(tools, NESTED.roles.lead, NESTED);
    expect(offeredToolsOf({ tools: lead.tools }).agentTypes).toEqual(['default', 'reviewer']);
  });

  it('describes the mesh tools with the calling role’s own spawn and control lists', () => {
    const tools = [
      {
        type: 'namespace',
        name: 'mcp__mmo_mesh',
        tools: [
          { type: 'function', name: 'spawn_participant', description: 'Roles you may spawn: x.' },
          { type: 'function', name: 'stop_participant', description: 'Roles you may stop: x.' },
        ],
      },
    ];
    const native: WireRole = {
      ...role('scout', {}),
      mesh: true,
      spawn: ['a', 'b'],
      control: ['c'],
    };
    const out = JSON.stringify(describeMeshFor(tools, native));
    expect(out).toContain('Roles you may spawn: a, b.');
    expect(out).toContain('Roles you may stop: c.');
    expect(out).not.toContain(': x.');
    // a role without spawn/control is left as it is (filterTools has removed mmo_mesh already)
    expect(describeMeshFor(tools, role('plain', {}))).toEqual(tools);
  });

  it('refuses a sub-agent of a native role its parent role may not start', () => {
    const threads = new ThreadRoles();
    const id = (thread: string, text: string, parent?: string): ReturnType<typeof wireIdentity> =>
      wireIdentity(
        {
          'thread-id': thread,
          ...(parent !== undefined ? { 'x-codex-parent-thread-id': parent } : {}),
        },
        { input: [{ type: 'message', role: 'developer', content: text }] },
      );
    expect(threads.resolve('root', NESTED, id('t1', 'I am lead.')).entry.role).toBe('lead');
    const direct = threads.resolve('root', NESTED, id('t2', 'I am scribe.', 't1'));
    expect(direct.attribution).toEqual({
      ok: false,
      refused: true,
      reason:
        'role lead may not start a sub-agent of role scribe: its native_agents allow reviewer',
    });
    // it stays refused on its next request
    expect(
      threads.resolve('root', NESTED, id('t2', 'I am scribe.', 't1')).attribution,
    ).toMatchObject({ ok: false, refused: true });
    expect(threads.resolve('root', NESTED, id('t3', 'I am reviewer.', 't1')).entry.role).toBe(
      'reviewer',
    );
    expect(threads.resolve('root', NESTED, id('t4', 'I am scribe.', 't3')).entry.role).toBe(
      'scribe',
    );
  });
});

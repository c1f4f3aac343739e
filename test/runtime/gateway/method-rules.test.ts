/**
 * The gateway's rule table and request decisions: every MCP method a client can send has the
 * rule docs/security.md documents and an unknown method is refused; resources and prompts need a role
 * granted the server, or every role of the process when the caller's role is not known; a
 * `tools/call` keeps its grant, role, drift and credential checks; the credential check reads
 * every value of any request's params.
 */
import { describe, expect, it } from 'vitest';

import { credentialMatcher } from '../../../src/foundation/diagnostics/credential-scan.js';
import {
  FORWARDED_NOTIFICATIONS,
  REQUEST_RULES,
  mayReachServer,
  recordsAdmitted,
  requestRule,
} from '../../../src/runtime/gateway/method-rules.js';
import { decideRequest } from '../../../src/runtime/gateway/request-gate.js';
import type { Route } from '../../../src/runtime/gateway/route.js';

const CREDENTIAL = 'rule-canary-5b7d9e';
const matcher = credentialMatcher([CREDENTIAL, '80417362519']);

function route(everyRole: boolean): Route {
  return {
    process: 'root',
    role: 'lead',
    server: 'notes',
    definition: {
      id: 'notes',
      transport: 'stdio',
      command: 'x',
      enabled_tools: [],
      default_tools_approval_mode: 'approve',
    },
    gate: { allowed: new Set(['list', 'add']) },
    launch: { env: {}, home: '/h', cwd: '/h', credentials: undefined as never },
    threads: {
      roleOf: () => undefined,
      roles: everyRole
        ? { lead: new Set(['list', 'add']), scout: new Set(['list']) }
        : { lead: new Set(['list', 'add']) },
      differs: true,
      everyRole,
    },
  };
}

function decide(method: string, params: unknown, role: string | null, everyRole = false) {
  return decideRequest({
    route: route(everyRole),
    method,
    params,
    role,
    matcher,
    isDrifted: () => false,
    clean: (t) => t,
  });
}

describe('method rules', () => {
  it('gives every method of the MCP schema its documented rule, and refuses the rest', () => {
    expect(REQUEST_RULES).toEqual({
      initialize: 'connection',
      ping: 'connection',
      'server/discover': 'connection',
      'tools/list': 'tool-list',
      'tools/call': 'tool-call',
      'resources/list': 'granted-server',
      'resources/templates/list': 'granted-server',
      'resources/read': 'granted-server',
      'prompts/list': 'granted-server',
      'prompts/get': 'granted-server',
      'resources/subscribe': 'refused',
      'resources/unsubscribe': 'refused',
      'subscriptions/listen': 'refused',
      'completion/complete': 'refused',
      'logging/setLevel': 'refused',
      'tasks/get': 'refused',
      'tasks/list': 'refused',
      'tasks/result': 'refused',
      'tasks/cancel': 'refused',
      'tasks/update': 'refused',
    });
    for (const method of ['bogus/x', 'toString', '__proto__', 'constructor', '', 'TOOLS/CALL']) {
      expect(requestRule(method), method).toBe('refused');
    }
    expect([...FORWARDED_NOTIFICATIONS].sort()).toEqual([
      'notifications/cancelled',
      'notifications/initialized',
      'notifications/progress',
      'notifications/roots/list_changed',
    ]);
    expect(['tools/call', 'resources/read', 'prompts/get'].every(recordsAdmitted)).toBe(true);
    expect(['initialize', 'ping', 'tools/list'].some(recordsAdmitted)).toBe(false);
  });

  it('lets a role reach resources and prompts only of a server it is granted', () => {
    const mixed = { granted: new Set(['lead']), everyRole: false };
    expect(mayReachServer(mixed, 'lead')).toBe(true);
    expect(mayReachServer(mixed, 'scout')).toBe(false);
    expect(mayReachServer(mixed, null)).toBe(false);
    expect(mayReachServer({ granted: new Set(['lead', 'scout']), everyRole: true }, null)).toBe(
      true,
    );
    for (const method of [
      'resources/list',
      'resources/templates/list',
      'resources/read',
      'prompts/list',
      'prompts/get',
    ]) {
      expect(decide(method, {}, 'lead').decline, method).toBeUndefined();
      expect(decide(method, {}, 'scout').decline).toMatchObject({
        outcome: 'blocked',
        code: 'server-not-granted-to-role',
      });
      expect(decide(method, {}, null).decline?.code).toBe('server-not-granted-to-role');
      expect(decide(method, {}, null, true).decline).toBeUndefined();
    }
  });

  it('refuses methods without a rule whoever asks', () => {
    for (const method of ['resources/subscribe', 'completion/complete', 'logging/setLevel', 'x']) {
      expect(decide(method, {}, 'lead', true).decline).toMatchObject({
        outcome: 'blocked',
        code: 'method-not-allowed',
        rpcCode: -32601,
      });
    }
  });

  it('gives each MCP 2026-07-28 method its rule by calling role', () => {
    // discovery: any process with a route, whatever its role
    for (const role of ['lead', 'scout', null]) {
      expect(decide('server/discover', {}, role).decline, String(role)).toBeUndefined();
    }
    expect(recordsAdmitted('server/discover')).toBe(false);
    // a subscription stream and tasks: refused whoever asks, as resource subscriptions are
    for (const method of [
      'subscriptions/listen',
      'tasks/get',
      'tasks/list',
      'tasks/result',
      'tasks/cancel',
      'tasks/update',
    ]) {
      expect(decide(method, {}, 'lead', true).decline, method).toMatchObject({
        outcome: 'blocked',
        code: 'method-not-allowed',
      });
    }
    // a multi round-trip retry is the method again: its grant checks hold
    const retry = { name: 'add', arguments: {}, inputResponses: { ok: { action: 'accept' } } };
    expect(decide('tools/call', retry, 'lead').decline).toBeUndefined();
    expect(decide('tools/call', retry, 'scout').decline?.code).toBe('tool-not-granted-to-role');
  });

  it('keeps the tool checks of tools/call', () => {
    expect(decide('tools/call', { name: 'add', arguments: {} }, 'lead').decline).toBeUndefined();
    expect(decide('tools/call', { name: 'add' }, 'scout').decline?.code).toBe(
      'tool-not-granted-to-role',
    );
    expect(decide('tools/call', { name: 'nope' }, 'lead').decline?.code).toBe('tool-not-granted');
    expect(decide('tools/call', { name: 'list' }, null).decline?.code).toBe(
      'tool-not-granted-to-role',
    );
  });

  it('finds a credential in any value of any request', () => {
    const cases: [string, unknown][] = [
      ['resources/read', { uri: `https://x.test/?k=${CREDENTIAL}` }],
      ['prompts/get', { name: 'greet', arguments: { who: CREDENTIAL } }],
      ['tools/call', { name: 'add', arguments: { n: 80417362519 } }],
      ['tools/call', { name: 'add', arguments: { [CREDENTIAL]: 1 } }],
      ['ping', { _meta: { note: Buffer.from(CREDENTIAL).toString('base64') } }],
      ['tools/list', { cursor: Buffer.from(CREDENTIAL).toString('hex') }],
      // the 2026 carriers of a multi round-trip retry and the envelope
      [
        'tools/call',
        {
          name: 'add',
          arguments: {},
          inputResponses: { ok: { action: 'accept', content: { token: CREDENTIAL } } },
        },
      ],
      ['tools/call', { name: 'add', arguments: {}, requestState: `st-${CREDENTIAL}` }],
      [
        'prompts/get',
        { name: 'g', requestState: Buffer.from(`{"k":"${CREDENTIAL}"}`).toString('base64') },
      ],
      ['resources/read', { uri: 'note://one', inputResponses: { [CREDENTIAL]: {} } }],
      [
        'server/discover',
        { _meta: { 'io.modelcontextprotocol/clientInfo': { name: CREDENTIAL, version: '1' } } },
      ],
    ];
    for (const [method, params] of cases) {
      expect(decide(method, params, 'lead', true).decline, method).toMatchObject({
        outcome: 'blocked',
        code: 'credential-in-arguments',
      });
    }
    expect(decide('resources/read', { uri: 'note://one' }, 'lead').decline).toBeUndefined();
  });
});

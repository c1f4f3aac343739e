/**
 * How a failed server is told: the diagnostic's severity follows the grant, the event keeps the
 * URL, reason and stderr lines, and a failed session's error adds the root servers' own words.
 */
import { describe, expect, it } from 'vitest';

import { describeEvent } from '../../../src/runtime/events/format-event.js';
import type { ServerFailure } from '../../../src/runtime/gateway/server-failure.js';
import { withCause } from '../../../src/runtime/gateway/server-failure.js';
import {
  serverFailureDiagnostic,
  serverFailureEvent,
  withOwnWords,
} from '../../../src/features/session/server-failures.js';

const STDIO: ServerFailure = {
  process: 'root',
  role: 'lead',
  server: 'files',
  stage: 'start',
  reason: 'it exited with code 1',
  stderr: ['Error: None of the specified directories are accessible'],
};

const HTTP: ServerFailure = {
  process: 'worker-1',
  role: 'worker',
  server: 'web',
  stage: 'start',
  url: 'http://127.0.0.1:9/mcp',
  reason: 'fetch failed (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9)',
  stderr: [],
};

describe('server failures', () => {
  it('is an error for a required grant and a warning otherwise, naming server, process and role', () => {
    const required = serverFailureDiagnostic(STDIO, true);
    expect(required).toMatchObject({
      severity: 'error',
      code: 'server-start-failed',
      server: 'files',
    });
    expect(required.message).toContain(
      "server 'files' could not start: it exited with code 1; its stderr ended with: Error: None of the specified directories are accessible",
    );
    expect(required.message).toContain("the session root process, role 'lead'");
    const optional = serverFailureDiagnostic(HTTP, false);
    expect(optional.severity).toBe('warning');
    expect(optional.message).toContain(
      "server 'web' at http://127.0.0.1:9/mcp could not start: fetch failed (ECONNREFUSED",
    );
    expect(optional.message).toContain("participant 'worker-1', role 'worker'");
  });

  it('is a server.failed event with the URL, reason and stderr', () => {
    const event = serverFailureEvent(HTTP);
    expect(event).toMatchObject({
      type: 'server.failed',
      process: 'worker-1',
      role: 'worker',
      server: 'web',
      status: 'start-failed',
    });
    expect(describeEvent({ ...event, time: 'T', session: 's' })).toBe(
      'server web failed to start: http://127.0.0.1:9/mcp: fetch failed (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9)',
    );
    expect(serverFailureEvent({ ...STDIO, stage: 'ended' }).status).toBe('ended');
  });

  it("adds the root servers' own words to Codex's message, and only those it names", () => {
    const codex = 'required MCP servers failed to initialize: files: handshaking failed';
    expect(withOwnWords(codex, [STDIO, { ...STDIO, server: 'other' }, HTTP])).toBe(
      `${codex}; server 'files' could not start: it exited with code 1; its stderr ended with: Error: None of the specified directories are accessible`,
    );
  });

  it("says the server's words once where Codex only repeats the gateway's", () => {
    const gateway = `server 'files' ended before it was used: ${STDIO.reason}; its stderr ended with: ${STDIO.stderr.join(' | ')}`;
    const codex = `required MCP servers failed to initialize: files: handshaking with MCP server failed: JSON-RPC error: -32000: ${gateway}: JSON-RPC error: -32000: ${gateway}`;
    const told = withOwnWords(codex, [STDIO]);
    expect(told).toBe(
      "required MCP servers failed to initialize: files; server 'files' could not start: it exited with code 1; its stderr ended with: Error: None of the specified directories are accessible",
    );
    // Codex's words stay whole when they say something else, or name other servers too
    const other = 'required MCP servers failed to initialize: files: handshaking failed';
    expect(withOwnWords(other, [STDIO])).toContain(other);
    const two = `required MCP servers failed to initialize: files, web: ${gateway}`;
    expect(withOwnWords(two, [STDIO])).toContain(two);
  });

  it('names the cause of a failed fetch once', () => {
    const error = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
    });
    expect(withCause(error)).toBe('fetch failed (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9)');
  });
});

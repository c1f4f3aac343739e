/**
 * Whether one request from Codex may go on to its server (pure): the method's rule (default
 * deny), the calling role's grant of the server or tool, the tool's pin, and the credential
 * check over every value of the params. A refusal carries its recorded outcome and reason and
 * the text the caller gets; names taken from the request are shown only through `clean`.
 */
import type { CallOutcome, CallReason } from './call-record.js';
import {
  findCredentialIn,
  type CredentialMatcher,
} from '../../foundation/diagnostics/credential-scan.js';
import { mayReachServer, requestRule } from './method-rules.js';
import { METHOD_NOT_FOUND, isObject } from './relay-messages.js';
import { serverAccess, type Route } from './route.js';

/** Why a request is refused: its outcome, recorded reason and the text its caller gets. */
export interface Decline {
  readonly outcome: CallOutcome;
  /** The rule that refused it, recorded as the call's reason. */
  readonly code: CallReason;
  readonly text: string;
  /** The JSON-RPC error code (requests other than `tools/call`). */
  readonly rpcCode?: number;
}

export interface RequestInput {
  /** The session is ending: every request is refused as `session-ended`. */
  readonly stopping?: boolean;
  readonly route: Route;
  readonly method: string;
  readonly params: unknown;
  /** The calling role (null: not known). */
  readonly role: string | null;
  readonly matcher: CredentialMatcher;
  /** Whether a tool of the route is withheld for drift. */
  isDrifted(tool: string): boolean;
  /** A name from the request as it may be shown (credential values masked). */
  clean(text: string): string;
}

export interface RequestDecision {
  /** The tool of a `tools/call` (empty for other methods). */
  readonly tool: string;
  readonly decline?: Decline;
}

function toolDecline(input: RequestInput, tool: string): Decline | undefined {
  const { route, role } = input;
  const server = route.server;
  const name = input.clean(tool);
  if (!route.gate.allowed.has(tool)) {
    return {
      outcome: 'denied',
      code: 'tool-not-granted',
      text: `codex-mmo refused this call [tool-not-granted]: tool '${name}' of server '${server}' is not granted to this process`,
    };
  }
  const threads = route.threads;
  const mayCall = role === null ? threads?.differs !== true : threads?.roles[role]?.has(tool);
  if (threads !== undefined && mayCall !== true) {
    return {
      outcome: 'denied',
      code: 'tool-not-granted-to-role',
      text:
        role === null
          ? `codex-mmo refused this call [tool-not-granted-to-role]: the calling thread could not be attributed to a role, and roles of this process have different grants on server '${server}'`
          : `codex-mmo refused this call [tool-not-granted-to-role]: tool '${name}' of server '${server}' is not granted to role '${role}'`,
    };
  }
  if (input.isDrifted(tool)) {
    return {
      outcome: 'blocked',
      code: 'tool-drift',
      text: `codex-mmo refused this call [tool-drift]: tool '${name}' of server '${server}' differs from its pin in tool-mcp.lock and is withheld from this session`,
    };
  }
  return undefined;
}

function ruleDecline(input: RequestInput): Decline | undefined {
  const { route, role, method } = input;
  const server = route.server;
  const rule = requestRule(method);
  if (rule === 'refused') {
    return {
      outcome: 'blocked',
      code: 'method-not-allowed',
      rpcCode: METHOD_NOT_FOUND,
      text: `codex-mmo refused this request [method-not-allowed]: method '${input.clean(method)}' is not forwarded to Tool MCP servers in a codex-mmo session`,
    };
  }
  if (rule === 'granted-server' && !mayReachServer(serverAccess(route), role)) {
    return {
      outcome: 'blocked',
      code: 'server-not-granted-to-role',
      text:
        role === null
          ? `codex-mmo refused this request [server-not-granted-to-role]: it names no thread attributed to a role, and not every role of this process is granted server '${server}'`
          : `codex-mmo refused this request [server-not-granted-to-role]: server '${server}' is not granted to role '${role}'`,
    };
  }
  return undefined;
}

export function decideRequest(input: RequestInput): RequestDecision {
  const isCall = input.method === 'tools/call';
  const params = isObject(input.params) ? input.params : {};
  const tool = isCall && typeof params.name === 'string' ? params.name : '';
  if (input.stopping === true) {
    return {
      tool,
      decline: {
        outcome: 'denied',
        code: 'session-ended',
        text: `codex-mmo refused this ${isCall ? 'call' : 'request'} [session-ended]: the session is ending`,
      },
    };
  }
  const declined = isCall ? toolDecline(input, tool) : ruleDecline(input);
  if (declined !== undefined) return { tool, decline: declined };
  const found = findCredentialIn(input.params, input.matcher);
  if (found !== undefined) {
    return {
      tool,
      decline: {
        outcome: 'blocked',
        code: 'credential-in-arguments',
        text: isCall
          ? `codex-mmo refused this call [credential-in-arguments]: its arguments contain a credential of this session (${found}); credentials are never passed to tools`
          : `codex-mmo refused this request [credential-in-arguments]: its params contain a credential of this session (${found}); credentials are never passed to Tool MCP servers`,
      },
    };
  }
  return { tool };
}

/**
 * The line protocol between a relay (`codex-mmo gateway connect`, started by Codex as a stdio MCP
 * server) and the session's gateway in the supervising codex-mmo process, over the gateway's Unix
 * socket: the relay's first line is a `hello` carrying its token; the gateway answers one control
 * line (`ready` or `refused`); after that both sides exchange raw MCP JSON-RPC, one message a line.
 */

/** Key that marks a control line (JSON-RPC messages never carry it). */
export const CONTROL_KEY = 'codex_mmo_gateway';

/** Prefix of the environment variable that carries one server's relay token in a Codex process. */
export const GATEWAY_TOKEN_ENV_PREFIX = 'CODEX_MMO_GATEWAY_TOKEN_';

export interface HelloLine {
  readonly [CONTROL_KEY]: 'hello';
  readonly token: string;
  /** What the relay was started for; checked against what the token belongs to. */
  readonly server: string;
  readonly process: string;
  /** The relay's own pid: a later connection with a spent token must come from a sibling relay. */
  readonly pid?: number;
  /** The relay's PID namespace (`pid:[…]`): its pid is an id there (inside a container). */
  readonly pid_ns?: string;
}

export interface ReadyLine {
  readonly [CONTROL_KEY]: 'ready';
}

export interface RefusedLine {
  readonly [CONTROL_KEY]: 'refused';
  readonly message: string;
}

export type ControlLine = HelloLine | ReadyLine | RefusedLine;

export function isControlLine(value: unknown): value is ControlLine {
  return typeof value === 'object' && value !== null && CONTROL_KEY in value;
}

/**
 * The variable name of a server's token in one process: the prefix, then the server's position
 * in the process (unambiguous, unlike an upper-cased id, where `a-b` and `a_b` would collide).
 */
export function tokenEnvName(index: number): string {
  return `${GATEWAY_TOKEN_ENV_PREFIX}${String(index + 1)}`;
}

/**
 * How Codex processes reach the session gateway: `http` (loopback Streamable HTTP served by the
 * supervisor, no process per server) or `relay` (a `gateway connect` process per server per Codex
 * process, over the gateway's Unix socket). Sessions use `SESSION_GATEWAY_TRANSPORT`.
 */
export type GatewayTransport = 'http' | 'relay';

/** The transport every session's gateway uses. */
export const SESSION_GATEWAY_TRANSPORT: GatewayTransport = 'http';

/**
 * The session gateway as the CLI sees it: the call log, and the relay of `gateway connect` with
 * its argument parsing.
 */
export { readCalls } from './call-log.js';
export type { CallRecord } from './call-record.js';
export { runRelay } from './relay-client.js';
export { runRelayFromArguments } from './relay-argv.js';

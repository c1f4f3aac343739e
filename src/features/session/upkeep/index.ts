/**
 * Keeping the session store tidy, without loading what runs a session: stopping a running session,
 * clearing up after sessions whose supervisor was killed, and pruning ended ones.
 */
export { clearAbandonedSessions } from './abandoned-sessions.js';
export { pruneSessions } from './prune-sessions.js';
export { type StopResult, stopSession } from './stop-session.js';

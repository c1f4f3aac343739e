/**
 * Sessions end to end: starting (interactive or `exec`), stopping, launching, preflight checks and
 * pruning what ended.
 */
export { clearAbandonedSessions } from './abandoned-sessions.js';
export { parseExecCodexArgs } from './exec-arguments.js';
export { launchSession, type SessionOutcome } from './launch.js';
export { checkInterpreter, checkSessionCwd } from './preflight.js';
export type { SessionMode } from './prepare-session.js';
export { pruneSessions } from './prune-sessions.js';
export { findResumeSource, type ResumeSource } from './resume-source.js';
export {
  startSession,
  type StartSessionRequest,
  type StartSessionResult,
} from './start-session.js';
export { type StopResult, stopSession } from './stop-session.js';

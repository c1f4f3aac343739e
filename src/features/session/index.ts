/**
 * Sessions end to end: starting (interactive or `exec`), resuming, launching and preflight
 * checks. Stopping and clearing up after sessions is `upkeep/` (its own index, light to load).
 */
export { parseExecCodexArgs } from './exec-arguments.js';
export { launchSession, type SessionOutcome } from './launch.js';
export { checkInterpreter, checkSessionCwd } from './preflight.js';
export type { SessionMode } from './prepare-session.js';
export { findResumeSource, type ResumeSource } from './resume-source.js';
export {
  startSession,
  type StartSessionRequest,
  type StartSessionResult,
} from './start-session.js';

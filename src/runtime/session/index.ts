/**
 * Session state on disk: records, their effective status, and where each session lives; the
 * team budget a session runs within.
 */
export {
  effectiveRecord,
  isActiveStatus,
  type SessionRecord,
  type SessionStatus,
} from './session-record.js';
export {
  listSessionRecords,
  locateSession,
  readSessionRecord,
  sessionDir,
} from './session-store.js';
export { budgetLines, resolveTeamBudget, type TeamBudget } from './team-budget.js';

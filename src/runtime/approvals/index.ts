/**
 * A running session's approval queue, for the operator: listing and answering requests.
 */
export { answerSessionApproval, listSessionApprovals } from './session-approvals.js';

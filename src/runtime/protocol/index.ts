/**
 * The shared words of the session protocols: approval decisions and the `mmo_mesh` tool names.
 */
export {
  type ApprovalDecision,
  DEFAULT_APPROVAL_TIMEOUT_SEC,
  type PendingApproval,
} from './approval-types.js';
export { MESH_TOOL_NAMES } from './mesh-protocol.js';

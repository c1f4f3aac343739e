/**
 * Reaching a real Tool MCP server: the launch plan (how Codex would start it).
 */
export { type LaunchContext, planLaunch } from './launch-plan.js';

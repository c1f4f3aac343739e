/** Placeholder for `tool-mcp-validate`; replaced by the real command module. */
export { run } from './unavailable.js';

/** Placeholder for `tool-mcp-show`; replaced by the real command module. */
export { run } from './unavailable.js';

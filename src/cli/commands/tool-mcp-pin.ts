/** Placeholder for `tool-mcp-pin`; replaced by the real command module. */
export { run } from './unavailable.js';

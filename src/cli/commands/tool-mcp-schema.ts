/** Placeholder for `tool-mcp-schema`; replaced by the real command module. */
export { run } from './unavailable.js';

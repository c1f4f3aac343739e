/** Placeholder for `tool-mcp-probe`; replaced by the real command module. */
export { run } from './unavailable.js';

/** Placeholder for `session-list`; replaced by the real command module. */
export { run } from './unavailable.js';

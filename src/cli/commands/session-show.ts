/** Placeholder for `session-show`; replaced by the real command module. */
export { run } from './unavailable.js';

/** Placeholder for `session-stop`; replaced by the real command module. */
export { run } from './unavailable.js';

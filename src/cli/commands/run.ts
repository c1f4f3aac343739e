/** Placeholder for `run`; replaced by the real command module. */
export { run } from './unavailable.js';

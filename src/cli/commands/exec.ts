/** Placeholder for `exec`; replaced by the real command module. */
export { run } from './unavailable.js';

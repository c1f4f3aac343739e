/** Placeholder for `snapshot-compile`; replaced by the real command module. */
export { run } from './unavailable.js';

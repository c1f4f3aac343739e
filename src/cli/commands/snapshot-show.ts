/** Placeholder for `snapshot-show`; replaced by the real command module. */
export { run } from './unavailable.js';

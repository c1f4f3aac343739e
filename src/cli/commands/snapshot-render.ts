/** Placeholder for `snapshot-render`; replaced by the real command module. */
export { run } from './unavailable.js';

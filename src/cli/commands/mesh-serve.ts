/** Placeholder for `mesh-serve`; replaced by the real command module. */
export { run } from './unavailable.js';

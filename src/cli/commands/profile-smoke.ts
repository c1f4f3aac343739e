/** Placeholder for `profile-smoke`; replaced by the real command module. */
export { run } from './unavailable.js';

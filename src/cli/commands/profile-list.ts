/** Placeholder for `profile-list`; replaced by the real command module. */
export { run } from './unavailable.js';

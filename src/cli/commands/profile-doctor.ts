/** Placeholder for `profile-doctor`; replaced by the real command module. */
export { run } from './unavailable.js';

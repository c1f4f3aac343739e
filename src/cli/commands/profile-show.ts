/** Placeholder for `profile-show`; replaced by the real command module. */
export { run } from './unavailable.js';

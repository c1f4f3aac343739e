/** Placeholder for `profile-install`; replaced by the real command module. */
export { run } from './unavailable.js';

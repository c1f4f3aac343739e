/**
 * The pin lock file: reading it and checking a registry's servers against their pins.
 */
export { checkPins } from './check-pins.js';
export { readLockFile } from './lock-file.js';

/**
 * The foundation's own files: error classes with stable codes, and codex-mmo's version.
 */
export { CodexMmoError, describeError } from './errors.js';
export { VERSION } from './version.js';

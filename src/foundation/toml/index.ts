/**
 * TOML key paths as the diagnostics print them.
 */
export { formatKeyPath } from './key-positions.js';

/**
 * Paths of the shipped example (operator configuration and pack) for profile tests, and the
 * shared temporary directories, which also remove read-only installed packs.
 */
import { join } from 'node:path';

export { tmpDir } from './tmp.js';

/** Path of the example pack shipped under examples/packs/research. */
export const EXAMPLE_PACK = join(import.meta.dirname, '..', '..', 'examples', 'packs', 'research');

/** Path of the example operator configuration shipped under examples/config. */
export const EXAMPLE_CONFIG = join(import.meta.dirname, '..', '..', 'examples', 'config');

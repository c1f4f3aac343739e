/**
 * Paths of the shipped examples for tests: the research pack and the operator configuration
 * under examples/. Temporary directories come from `tmp.ts`.
 */
import { join } from 'node:path';

/** Path of the example pack shipped under examples/packs/research. */
export const EXAMPLE_PACK = join(import.meta.dirname, '..', '..', 'examples', 'packs', 'research');

/** Path of the example operator configuration shipped under examples/config. */
export const EXAMPLE_CONFIG = join(import.meta.dirname, '..', '..', 'examples', 'config');

/**
 * A session's events: reading, formatting, and the root rollout's events.
 */
export { formatEvent } from './format-event.js';
export { readEvents } from './read-events.js';
export { rootRolloutEvents } from './rollout-events.js';
export type { SessionEvent } from './session-event.js';

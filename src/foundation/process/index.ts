/**
 * Process liveness and the PID namespace a session's processes run in.
 */
export { pidNamespace } from './pid-namespace.js';
export { isAlive } from './process-control.js';
export { livenessFor } from './session-marker.js';

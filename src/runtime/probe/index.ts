/**
 * Probing and pinning a server: the probe and pin steps, reports and codes.
 */
export { PROBE_CODES, type ProbeCode, type ProbeCodeInfo } from './diagnostic-codes.js';
export { type PinContext, type PinResult, pinServer } from './pin-server.js';
export { driftJson, probeJson, probeText } from './probe-report.js';
export { type ProbeContext, type ProbeResult, probeServer } from './probe-server.js';

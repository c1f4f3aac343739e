/**
 * The smoke test of a profile: one short session per role and what each role was offered.
 */
export {
  type SmokeMeasurement,
  smokeProfile,
  type SmokeReport,
  type ToolsByServer,
} from './smoke.js';

/**
 * Checking a profile without running it (`profile doctor`).
 */
export { doctorProfile, type DoctorReport } from './doctor.js';

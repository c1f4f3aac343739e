/**
 * Profile packs: opening, installing and listing them, resolving their roles and grants against
 * the registry, and the plan as JSON.
 */
export { type CodeInfo, PROFILE_DIAGNOSTIC_CODES } from './diagnostic-codes.js';
export { unresolvedGrantWarnings } from './install-warnings.js';
export { loadPack } from './load-pack.js';
export { installPack, listPacks, openPack, profilesDir } from './pack-store.js';
export { planToJson, profileToJson, type ResolvedPlanJson } from './plan-json.js';
export { registryInputs, resolvePack, withGrantProblems } from './resolve-pack.js';
export { checkGrants, resolvePlan } from './resolve-plan.js';
export {
  PROFILE_SCHEMA_VERSION,
  type ProfileData,
  type ProfilePack,
  type ResolvedPlan,
} from './types.js';

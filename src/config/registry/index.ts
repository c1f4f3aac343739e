/**
 * The operator registry: its types, loading (with the fragment cache), validation, credentials,
 * readiness and lookups.
 */
export { knownCredentials } from './credential-literals.js';
export { loadCredentials, type LoadedCredentials } from './credentials.js';
export { REGISTRY_CODES, type RegistryCode } from './diagnostic-codes.js';
export { codeFingerprint, type FragmentCache } from './fragment-cache.js';
export { fragmentCredentialLiterals } from './fragment-credential-literals.js';
export { fragmentJsonSchema } from './fragment-schema.js';
export { loadRegistry } from './load-registry.js';
export { loadRegistryCached } from './load-registry-cached.js';
export { checkReadiness, type Readiness } from './readiness.js';
export {
  APPROVAL_MODES,
  type ApprovalMode,
  referencedEnvVars,
  type Registry,
  REGISTRY_SCHEMA_VERSION,
  type RegistryEntry,
  type ServerDefinition,
  type ServerStatus,
} from './types.js';
export {
  diagnosticsAffecting,
  lookupServer,
  type RegistryValidation,
  validateRegistry,
} from './validate-registry.js';

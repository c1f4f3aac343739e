/**
 * Adding and removing a server fragment, and the scripted model the CLI serves for offline runs.
 */
export { type AddRequest, type AddResult, addServer } from './add-server.js';
export type { FragmentTarget } from './fragment-text.js';
export { DEFAULT_SCRIPT, parseModelScript, scriptHandler } from './model-script.js';
export { type RemoveResult, removeServer } from './remove-server.js';
export { type ServerCheck, checkServers } from './check-servers.js';
export {
  EXPORT_FORMATS,
  type ExportFormat,
  type ExportResult,
  exportServers,
} from './export-server.js';
export { IMPORT_FORMATS, type ImportFormat } from './import-types.js';
export { type ImportResult, importServers } from './import-servers.js';

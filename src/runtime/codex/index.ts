/**
 * Codex itself: which binary a session uses, and the scripted local model for offline turns.
 */
export { codexInUse } from './codex-in-use.js';
export {
  type ModelRequest,
  SCRIPTED_MODEL_NAME,
  type ScriptedItem,
  scriptedProviderConfig,
  startScriptedModel,
} from './scripted-model.js';

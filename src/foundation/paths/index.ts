/**
 * Where codex-mmo keeps its files.
 */
export {
  configFiles,
  type Directories,
  type DirectoryOverrides,
  type Environment,
  resolveDirectories,
} from './directories.js';

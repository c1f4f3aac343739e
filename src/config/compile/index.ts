/**
 * Compiling a profile into a snapshot and rendering each Codex process's home from it.
 */
export { compileProfile, type CompileRequest, type CompileResult } from './compile-profile.js';
export { renderAll, renderProcess } from './render-process.js';
export type { MeshLaunch, RenderedHome, RenderOptions } from './types.js';
export { writeRenderedHome } from './write-home.js';

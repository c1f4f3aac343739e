/**
 * The `mmo_mesh` server: serving it, its credential, its launch and the participant cap.
 */
export { defaultCliLaunch } from './mesh-command.js';
export { MESH_TOKEN_ENV } from './mesh-credential.js';
export { resolveMaxParticipants } from './participant-cap.js';
export { serveMesh } from './serve-mesh.js';

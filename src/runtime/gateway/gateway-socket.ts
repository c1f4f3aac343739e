/**
 * Where a session's gateway listens: `gateway.sock` beside its mesh socket. A module of its own,
 * so what clears an ended session's sockets never loads the gateway.
 */

/** `gateway.sock` beside the mesh socket (or `<name>-gw.sock` for a socket of another name). */
export function gatewaySocketPath(meshSocket: string): string {
  return meshSocket.endsWith('/mesh.sock')
    ? `${meshSocket.slice(0, -'mesh.sock'.length)}gateway.sock`
    : meshSocket.replace(/(\.sock)?$/, '-gw.sock');
}

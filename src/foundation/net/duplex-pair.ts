/**
 * Two connected in-memory streams, as the two ends of a socket that does not stay half open: what
 * one writes the other reads, either end's ending or destruction closes both. Node has
 * `stream.duplexPair` from 22.6 only; this runs on Node 20.
 */
import { Duplex } from 'node:stream';

export function duplexPair(): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  const make = (other: () => Duplex | undefined): Duplex =>
    new Duplex({
      allowHalfOpen: false,
      read() {
        // written by the other end
      },
      write(chunk: Buffer, _encoding, done) {
        other()?.push(chunk);
        done();
      },
      final(done) {
        other()?.push(null);
        done();
      },
    });
  const a = make(() => ends[1]);
  const b = make(() => ends[0]);
  ends.push(a, b);
  a.once('close', () => b.destroy());
  b.once('close', () => a.destroy());
  return [a, b];
}

/**
 * The seccomp program of a session's host view (pure): an allowlist of sockets — IPv4, IPv6,
 * netlink, Unix datagram sockets (interface look-ups need one) and Unix socket pairs — so no
 * stream or seqpacket connection to a Unix socket of the host, by path or in the abstract
 * namespace, can be made; io_uring (which opens sockets past this filter) and the kernel keyrings
 * are refused too. Every refusal is EPERM; a foreign system-call ABI is refused whole. Rendered as
 * the classic BPF that `bwrap --seccomp FD` loads.
 */

/** One system-call table: the numbers this filter looks at, per machine. */
interface Abi {
  /** `AUDIT_ARCH_*` of the native ABI. */
  readonly arch: number;
  /** Numbers at or above this belong to another ABI on the same machine (x32), if any. */
  readonly foreignFrom?: number;
  readonly socket: number;
  readonly socketpair: number;
  /** Refused whatever their arguments. */
  readonly refused: readonly number[];
}

const ABIS: Readonly<Partial<Record<NodeJS.Architecture, Abi>>> = {
  // io_uring_setup/enter/register 425–427; add_key 248, request_key 249, keyctl 250
  x64: {
    arch: 0xc000003e,
    foreignFrom: 0x40000000,
    socket: 41,
    socketpair: 53,
    refused: [425, 426, 427, 248, 249, 250],
  },
  // add_key 217, request_key 218, keyctl 219
  arm64: {
    arch: 0xc00000b7,
    socket: 198,
    socketpair: 199,
    refused: [425, 426, 427, 217, 218, 219],
  },
};

/** Socket families a sandboxed process may open: AF_INET, AF_INET6, AF_NETLINK. */
const FAMILIES = [2, 10, 16] as const;
/** The one Unix socket type a sandboxed process may open: SOCK_DGRAM (flags masked off). */
const SOCK_DGRAM = 2;
const AF_UNIX = 1;

const LD_ABS_W = 0x20;
const ALU_AND_K = 0x54;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const ALLOW = 0x7fff0000;
const DENY = 0x00050000 | 1; // SECCOMP_RET_ERRNO | EPERM

/** Offsets in `struct seccomp_data`: the number, the ABI, the low words of the arguments. */
const NR = 0;
const ARCH = 4;
const arg = (i: number): number => 16 + 8 * i;

type Step =
  | { readonly op: 'load'; readonly at: number }
  | { readonly op: 'and'; readonly k: number }
  | { readonly op: 'jeq' | 'jge'; readonly k: number; readonly then: string; readonly else: string }
  | { readonly op: 'ret'; readonly k: number }
  | { readonly op: 'label'; readonly name: string };

/** `value` of the loaded word jumps to `then` when it is one of `ks`, else to `otherwise`. */
function oneOf(ks: readonly number[], then: string, otherwise: string): Step[] {
  return ks.map((k, i) => ({ op: 'jeq', k, then, else: i === ks.length - 1 ? otherwise : `+` }));
}

function program(abi: Abi): Step[] {
  return [
    { op: 'load', at: ARCH },
    { op: 'jeq', k: abi.arch, then: '+', else: 'deny' },
    { op: 'load', at: NR },
    ...(abi.foreignFrom !== undefined
      ? [{ op: 'jge', k: abi.foreignFrom, then: 'deny', else: '+' } as const]
      : []),
    { op: 'jeq', k: abi.socket, then: 'socket', else: '+' },
    { op: 'jeq', k: abi.socketpair, then: 'pair', else: '+' },
    ...oneOf(abi.refused, 'deny', 'allow'),
    { op: 'label', name: 'socket' },
    { op: 'load', at: arg(0) },
    ...oneOf(FAMILIES, 'allow', '+'),
    { op: 'jeq', k: AF_UNIX, then: '+', else: 'deny' },
    { op: 'load', at: arg(1) },
    { op: 'and', k: 0xf },
    { op: 'jeq', k: SOCK_DGRAM, then: 'allow', else: 'deny' },
    // a pair is connected from birth: it reaches nothing but itself
    { op: 'label', name: 'pair' },
    { op: 'load', at: arg(0) },
    { op: 'jeq', k: AF_UNIX, then: 'allow', else: 'deny' },
    { op: 'label', name: 'allow' },
    { op: 'ret', k: ALLOW },
    { op: 'label', name: 'deny' },
    { op: 'ret', k: DENY },
  ];
}

/** Resolves labels ('+' is the next instruction) and writes `struct sock_filter`s. */
function assemble(steps: readonly Step[]): Buffer {
  const labels = new Map<string, number>();
  let count = 0;
  for (const step of steps) {
    if (step.op === 'label') labels.set(step.name, count);
    else count += 1;
  }
  const out = Buffer.alloc(count * 8);
  let at = 0;
  const offset = (target: string): number => {
    const to = target === '+' ? at + 1 : labels.get(target);
    if (to === undefined || to <= at || to - at - 1 > 255) throw new Error(`bad jump ${target}`);
    return to - at - 1;
  };
  for (const step of steps) {
    if (step.op === 'label') continue;
    const base = at * 8;
    const [code, jt, jf, k] =
      step.op === 'load'
        ? [LD_ABS_W, 0, 0, step.at]
        : step.op === 'and'
          ? [ALU_AND_K, 0, 0, step.k]
          : step.op === 'ret'
            ? [RET_K, 0, 0, step.k]
            : [step.op === 'jeq' ? JEQ_K : JGE_K, offset(step.then), offset(step.else), step.k];
    out.writeUInt16LE(code, base);
    out.writeUInt8(jt, base + 2);
    out.writeUInt8(jf, base + 3);
    out.writeUInt32LE(k >>> 0, base + 4);
    at += 1;
  }
  return out;
}

/** The host view's seccomp program for `arch`, or undefined on a machine it does not know. */
export function hostSocketFilter(arch: NodeJS.Architecture = process.arch): Buffer | undefined {
  const abi = ABIS[arch];
  return abi === undefined ? undefined : assemble(program(abi));
}

import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes } from '../../sdk/bytes.js';
import { WASI_FUNCTIONS } from './wasi-names.js';

/**
 * A deterministic WASI preview 1 for jobs: stdin is the job's input, stdout its output, stderr its
 * log, args its args; there is no environment, no filesystem (no preopened directories) and no
 * network; both clocks read the block time of assignment; `random_get` is a SHA-256 stream seeded
 * from the job id; `poll_oneoff` reports stdin readable and stdout and stderr writable at once, and
 * a clock only when no descriptor was asked for (the earliest: a sleep returns at once, time does not
 * pass inside a job); sockets answer ENOTSOCK for stdio and EBADF for any other descriptor.
 * Everything else answers ENOSYS. Host calls pay gas.
 */

const SUCCESS = 0;
const EBADF = 8;
const EFAULT = 21;
const EINVAL = 28;
const ENOSYS = 52;
const ENOTSOCK = 57;
const ESPIPE = 70;

/** Gas a host call pays, plus one per 2^3 bytes it moves. */
const GAS_PER_CALL = 10n;

/** `proc_exit`: unwinds the job with its exit code. */
export class ProcExit {
  constructor(readonly code: number) {}
}

/** Stdout grew past the job's output limit: the job traps (deterministically, at the same byte). */
export class OutputLimitError extends Error {
  override name = 'OutputLimitError';
}

export interface WasiJob {
  readonly args: readonly string[];
  readonly stdin: Uint8Array;
  /** Block time of assignment, in nanoseconds since the epoch. */
  readonly clockNs: bigint;
  /** Seeds `random_get` (the job id). */
  readonly seed: Uint8Array;
  readonly maxOutputBytes: number;
  readonly maxLogBytes: number;
}

export class DeterministicWasi {
  private memory: WebAssembly.Memory | undefined;
  private stdinOffset = 0;
  private readonly stdout: Uint8Array[] = [];
  private readonly stderr: Uint8Array[] = [];
  private stdoutBytes = 0;
  private stderrBytes = 0;
  private randomCounter = 0;
  private randomPool: Uint8Array = new Uint8Array(0);
  private readonly args: Uint8Array[];

  constructor(
    private readonly job: WasiJob,
    /** Takes gas from the job (throws once it runs out). */
    private readonly pay: (gas: bigint) => void,
  ) {
    this.args = job.args.map((arg) => new TextEncoder().encode(`${arg}\0`));
  }

  bind(memory: WebAssembly.Memory): void {
    this.memory = memory;
  }

  get output(): Uint8Array {
    // Buffer.concat takes any number of chunks (a spread would not: a job may write a byte at a time).
    return new Uint8Array(Buffer.concat(this.stdout));
  }

  get log(): Uint8Array {
    return new Uint8Array(Buffer.concat(this.stderr));
  }

  /** The import object for the names the module imports: each a host function, unknown ones ENOSYS. */
  imports(names: readonly string[]): Record<string, (...args: never[]) => unknown> {
    const table = this.functions();
    const out: Record<string, (...args: never[]) => unknown> = {};
    for (const name of names) {
      if (!WASI_FUNCTIONS.has(name)) continue;
      const fn = table[name] ?? ((): number => ENOSYS);
      out[name] = (...args: never[]): unknown => {
        this.pay(GAS_PER_CALL);
        try {
          return fn(...args);
        } catch (error) {
          // A pointer outside the memory: the call fails, as a kernel's EFAULT would.
          if (error instanceof RangeError) return EFAULT;
          throw error;
        }
      };
    }
    return out;
  }

  private view(): DataView {
    if (!this.memory) throw new Error('WASI used before the memory was bound');
    return new DataView(this.memory.buffer);
  }

  private bytes(pointer: number, length: number): Uint8Array {
    const buffer = this.memory!.buffer;
    if (pointer + length > buffer.byteLength) throw new RangeError('out of bounds');
    return new Uint8Array(buffer, pointer, length);
  }

  private iovecs(pointer: number, count: number): Uint8Array[] {
    const view = this.view();
    const out: Uint8Array[] = [];
    for (let i = 0; i < count; i++)
      out.push(this.bytes(view.getUint32(pointer + i * 8, true), view.getUint32(pointer + i * 8 + 4, true)));
    return out;
  }

  // Host functions take what the module passes: numbers, and bigints for i64.
  // biome-ignore lint/suspicious/noExplicitAny: WebAssembly imports take each function's own number and bigint parameters.
  private functions(): Record<string, (...args: any[]) => number> {
    const sizes = (countPtr: number, sizePtr: number, items: readonly Uint8Array[]): number => {
      const view = this.view();
      view.setUint32(countPtr, items.length, true);
      view.setUint32(
        sizePtr,
        items.reduce((sum, item) => sum + item.length, 0),
        true,
      );
      return SUCCESS;
    };
    return {
      args_sizes_get: (countPtr: number, sizePtr: number) => sizes(countPtr, sizePtr, this.args),
      args_get: (argvPtr: number, bufPtr: number) => {
        const view = this.view();
        let at = bufPtr;
        this.args.forEach((arg, i) => {
          view.setUint32(argvPtr + i * 4, at, true);
          this.bytes(at, arg.length).set(arg);
          at += arg.length;
        });
        return SUCCESS;
      },
      environ_sizes_get: (countPtr: number, sizePtr: number) => sizes(countPtr, sizePtr, []),
      environ_get: () => SUCCESS,
      clock_res_get: (id: number, resPtr: number) => {
        if (id > 3) return EINVAL;
        this.view().setBigUint64(resPtr, 1n, true);
        return SUCCESS;
      },
      clock_time_get: (id: number, _precision: bigint, timePtr: number) => {
        if (id > 3) return EINVAL;
        this.view().setBigUint64(timePtr, this.job.clockNs, true);
        return SUCCESS;
      },
      fd_write: (fd: number, iovs: number, count: number, writtenPtr: number) => {
        if (fd !== 1 && fd !== 2) return EBADF;
        let written = 0;
        for (const chunk of this.iovecs(iovs, count)) {
          this.pay(BigInt(chunk.length) >> 3n);
          if (fd === 1) {
            if (this.stdoutBytes + chunk.length > this.job.maxOutputBytes)
              throw new OutputLimitError(`output over ${this.job.maxOutputBytes} bytes`);
            this.stdout.push(chunk.slice());
            this.stdoutBytes += chunk.length;
          } else {
            // The log is kept up to its limit and then cut: it is for reading, not for consensus.
            const room = Math.max(0, this.job.maxLogBytes - this.stderrBytes);
            if (room > 0) this.stderr.push(chunk.slice(0, room));
            this.stderrBytes += Math.min(room, chunk.length);
          }
          written += chunk.length;
        }
        this.view().setUint32(writtenPtr, written, true);
        return SUCCESS;
      },
      fd_read: (fd: number, iovs: number, count: number, readPtr: number) => {
        if (fd !== 0) return EBADF;
        let read = 0;
        for (const target of this.iovecs(iovs, count)) {
          const chunk = this.job.stdin.subarray(this.stdinOffset, this.stdinOffset + target.length);
          this.pay(BigInt(chunk.length) >> 3n);
          target.set(chunk);
          this.stdinOffset += chunk.length;
          read += chunk.length;
          if (chunk.length < target.length) break;
        }
        this.view().setUint32(readPtr, read, true);
        return SUCCESS;
      },
      fd_close: (fd: number) => (fd <= 2 ? SUCCESS : EBADF),
      fd_fdstat_get: (fd: number, statPtr: number) => {
        if (fd > 2) return EBADF;
        const view = this.view();
        view.setUint8(statPtr, 2); // character device
        view.setUint16(statPtr + 2, 0, true);
        view.setBigUint64(statPtr + 8, fd === 0 ? 0x2n : 0x40n, true); // fd_read / fd_write
        view.setBigUint64(statPtr + 16, 0n, true);
        return SUCCESS;
      },
      fd_fdstat_set_flags: (fd: number) => (fd <= 2 ? SUCCESS : EBADF),
      fd_filestat_get: (fd: number, statPtr: number) => {
        if (fd > 2) return EBADF;
        this.bytes(statPtr, 64).fill(0);
        this.view().setUint8(statPtr + 16, 2);
        return SUCCESS;
      },
      fd_prestat_get: () => EBADF, // no preopened directories: no filesystem
      fd_prestat_dir_name: () => EBADF,
      fd_seek: (fd: number) => (fd <= 2 ? ESPIPE : EBADF),
      fd_tell: (fd: number) => (fd <= 2 ? ESPIPE : EBADF),
      proc_exit: (code: number) => {
        throw new ProcExit(code);
      },
      // No sockets: stdin, stdout and stderr are not sockets, any other descriptor is not open.
      sock_accept: (fd: number) => (fd <= 2 ? ENOTSOCK : EBADF),
      sock_recv: (fd: number) => (fd <= 2 ? ENOTSOCK : EBADF),
      sock_send: (fd: number) => (fd <= 2 ? ENOTSOCK : EBADF),
      sock_shutdown: (fd: number) => (fd <= 2 ? ENOTSOCK : EBADF),
      sched_yield: () => SUCCESS,
      random_get: (pointer: number, length: number) => {
        this.pay(BigInt(length) >> 3n);
        this.bytes(pointer, length).set(this.random(length));
        return SUCCESS;
      },
      poll_oneoff: (inPtr: number, outPtr: number, count: number, eventsPtr: number) => {
        if (count === 0) return EINVAL;
        const view = this.view();
        const subs = Array.from({ length: count }, (_, i) => {
          const at = inPtr + i * 48;
          return {
            userdata: view.getBigUint64(at, true),
            tag: view.getUint8(at + 8),
            fd: view.getUint32(at + 16, true),
            timeout: view.getBigUint64(at + 24, true),
          };
        });
        // Deterministic readiness: stdin always readable, stdout and stderr always writable, so a poll
        // with any of those returns them at once; a clock fires only when nothing else can (the
        // earliest one: time does not pass inside a job, so waiting for it is instant).
        const ready = subs.filter((sub) => sub.tag === 1 || sub.tag === 2);
        const fired =
          ready.length > 0
            ? ready
            : [
                subs
                  .filter((sub) => sub.tag === 0)
                  .reduce((earliest, sub) => (sub.timeout < earliest.timeout ? sub : earliest)),
              ];
        fired.forEach((sub, i) => {
          const event = outPtr + i * 32;
          this.bytes(event, 32).fill(0);
          view.setBigUint64(event, sub.userdata, true);
          const readable = sub.tag === 1 && sub.fd === 0;
          const writable = sub.tag === 2 && (sub.fd === 1 || sub.fd === 2);
          if (sub.tag !== 0 && !readable && !writable) view.setUint16(event + 8, EBADF, true);
          view.setUint8(event + 10, sub.tag);
          if (readable) view.setBigUint64(event + 16, BigInt(this.job.stdin.length - this.stdinOffset), true);
        });
        view.setUint32(eventsPtr, fired.length, true);
        return SUCCESS;
      },
    };
  }

  private random(length: number): Uint8Array {
    while (this.randomPool.length < length) {
      const counter = new Uint8Array(8);
      new DataView(counter.buffer).setBigUint64(0, BigInt(this.randomCounter++));
      const block = sha256(concatBytes(this.job.seed, counter));
      this.randomPool = concatBytes(this.randomPool, block);
    }
    const out = this.randomPool.slice(0, length);
    this.randomPool = this.randomPool.slice(length);
    return out;
  }
}

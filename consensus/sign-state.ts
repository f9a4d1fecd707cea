import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { createHash } from 'node:crypto';

/** What a validator signs at a height and round, in the order it signs them. */
export type SignStep = 'proposal' | 'prevote' | 'precommit';
const ORDER: Record<SignStep, number> = { proposal: 1, prevote: 2, precommit: 3 };

interface LastSigned {
  readonly height: number;
  readonly round: number;
  readonly step: SignStep;
  /** sha256 of the bytes signed (hex). */
  readonly bytes: string;
  /** The signature given (hex). */
  readonly signature: string;
  /** The last value precommitted at this height and its round: the validator's lock, kept across restarts. */
  readonly lock?: { readonly height: number; readonly round: number; readonly value: string };
  /** What was signed, as the caller described it (a vote's fields): a restarted validator sends it again. */
  readonly message?: unknown;
  /**
   * The messages signed before it in the same height and round, with their signatures: a validator
   * killed after its precommit may have died before its prevote left, and the others wait for both.
   */
  readonly earlier?: ReadonlyArray<{ readonly message: unknown; readonly signature: string }>;
}

/** A signature refused because it could make a double sign: what was asked and what was signed last. */
export class DoubleSignRefused extends Error {
  override name = 'DoubleSignRefused';
}

const hash = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * A validator's signing state, on disk (CometBFT's `priv_validator_state`): the last height, round and
 * step it signed, the bytes and the signature. A signature is written and synced to disk before it is
 * returned, so a crash right after signing still knows it. It never signs below the last (height,
 * round, step), and at the same one signs only the same bytes again (answering the signature it gave):
 * a validator restarted from any crash, or restored from a copy behind this file, never double-signs
 * through it.
 */
export class SignState {
  private constructor(
    private readonly path: string,
    private last: LastSigned | undefined,
  ) {}

  /** Opens the state at `path` (none yet: nothing signed). A file that cannot be read is an error, never a fresh start. */
  static open(path: string): SignState {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new SignState(path, undefined);
      throw error;
    }
    const last = JSON.parse(text) as LastSigned;
    if (
      !Number.isSafeInteger(last.height) ||
      !Number.isSafeInteger(last.round) ||
      !(last.step in ORDER) ||
      typeof last.signature !== 'string'
    ) {
      throw new Error(`${path} is not a signing state: refusing to sign without knowing what was signed last`);
    }
    return new SignState(path, last);
  }

  lastSigned():
    | {
        height: number;
        round: number;
        step: SignStep;
        message?: unknown;
        signature: string;
        earlier: ReadonlyArray<{ message: unknown; signature: string }>;
      }
    | undefined {
    return (
      this.last && {
        height: this.last.height,
        round: this.last.round,
        step: this.last.step,
        signature: this.last.signature,
        earlier: this.last.earlier ?? [],
        ...(this.last.message !== undefined ? { message: this.last.message } : {}),
      }
    );
  }

  /**
   * The lock at a height: the last value this validator precommitted there, and the round. A validator
   * restarted mid-height takes it back, so it never prevotes against a value it precommitted.
   */
  lockAt(height: number): { round: number; value: string } | undefined {
    const lock = this.last?.lock;
    return lock && lock.height === height ? { round: lock.round, value: lock.value } : undefined;
  }

  /** Signs `bytes` for (height, round, step) with `signer`, or throws DoubleSignRefused. A precommit for a value passes it as `locks`. */
  sign(
    height: number,
    round: number,
    step: SignStep,
    bytes: Uint8Array,
    signer: (bytes: Uint8Array) => Uint8Array,
    locks?: string,
    message?: unknown,
  ): Uint8Array {
    const last = this.last;
    if (last) {
      const order =
        Math.sign(height - last.height) || Math.sign(round - last.round) || Math.sign(ORDER[step] - ORDER[last.step]);
      if (order < 0)
        throw new DoubleSignRefused(
          `refusing to sign ${step} at ${height}/${round}: already signed ${last.step} at ${last.height}/${last.round}`,
        );
      if (order === 0) {
        if (hash(bytes) === last.bytes) return Uint8Array.from(Buffer.from(last.signature, 'hex'));
        throw new DoubleSignRefused(
          `refusing to sign other bytes for ${step} at ${height}/${round}: that would be a double sign`,
        );
      }
    }
    const signature = signer(bytes);
    const kept = last?.lock && last.lock.height === height ? last.lock : undefined;
    const lock = step === 'precommit' && locks !== undefined ? { height, round, value: locks } : kept;
    const sameRound = last && last.height === height && last.round === round;
    const earlier = sameRound
      ? [
          ...(last.earlier ?? []),
          ...(last.message !== undefined ? [{ message: last.message, signature: last.signature }] : []),
        ]
      : [];
    const next: LastSigned = {
      height,
      round,
      step,
      bytes: hash(bytes),
      signature: Buffer.from(signature).toString('hex'),
      ...(lock ? { lock } : {}),
      ...(message !== undefined ? { message } : {}),
      ...(earlier.length > 0 ? { earlier } : {}),
    };
    this.persist(next);
    this.last = next;
    return signature;
  }

  /** Written to a temporary file, synced, renamed over the state, and the directory synced: all or nothing. */
  private persist(state: LastSigned): void {
    const temp = `${this.path}.tmp`;
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, JSON.stringify(state));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.path);
    const dir = openSync(dirname(this.path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  }
}

/** What a `--wait` waits on: a submitted transaction, job or deal, and the command that follows it up. */
export interface Submitted {
  /** `transaction`, `job`, `deal`. */
  readonly noun: string;
  readonly id: string;
  /** The command that shows where it stands later, e.g. `svc receipt 0x…`. */
  readonly followUp: string;
}

/**
 * Runs a `--wait` on something already submitted. Its id is printed (on stderr) before the wait, so an
 * interrupted wait still leaves what to follow up; Ctrl-C stops the wait, prints the id again with
 * the command that follows it up, and exits 130 (the submission stands).
 */
export async function waitingFor<T>(submitted: Submitted, wait: () => Promise<T>): Promise<T> {
  const { noun, id, followUp } = submitted;
  const interrupted = (): void => {
    process.stderr.write(`\nstopped waiting: ${noun} ${id} stands; follow it up with\n  ${followUp}\n`);
    process.exit(130);
  };
  // Listening before saying so: a Ctrl-C right after the line must find the handler.
  process.once('SIGINT', interrupted);
  process.stderr.write(`${noun} ${id} submitted; waiting (Ctrl-C stops waiting, not the ${noun})\n`);
  try {
    return await wait();
  } finally {
    process.off('SIGINT', interrupted);
  }
}

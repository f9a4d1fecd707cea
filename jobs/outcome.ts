/** How a job ended: its exit code, out of gas (a valid, paid result), or a trap of a named kind. */
export type JobExit =
  | { readonly kind: 'exit'; readonly code: number }
  | { readonly kind: 'out_of_gas' }
  | { readonly kind: 'trap'; readonly reason: string };

/** What running a job gives, the same on every node: exit, gas used, output and log bytes. */
export interface JobOutcome {
  readonly exit: JobExit;
  readonly gasUsed: bigint;
  readonly output: Uint8Array;
  readonly log: Uint8Array;
}

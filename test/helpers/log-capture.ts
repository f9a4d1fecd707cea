import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../kernel/log.js';

export interface CapturedLog {
  readonly log: Logger;
  readonly lines: Record<string, unknown>[];
  text(): string;
}

/** Every log captured in this test file: a failed test prints their warnings and errors (test/setup.ts). */
export const capturedLogs: CapturedLog[] = [];

/** A JSON logger whose lines are kept for assertions. */
export function captureLog(level: 'debug' | 'info' | 'warn' = 'info'): CapturedLog {
  const lines: Record<string, unknown>[] = [];
  let raw = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      raw += chunk.toString();
      for (const line of chunk.toString().split('\n'))
        if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const captured = { log: createLogger({ level, format: 'json', destination: stream }), lines, text: () => raw };
  capturedLogs.push(captured);
  return captured;
}

import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import pretty from 'pino-pretty';

export type Logger = PinoLogger;
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
export type LogFormat = 'json' | 'pretty';

export interface LogOptions {
  level: LogLevel;
  format: LogFormat;
  /** Where lines go; stdout by default. Tests pass a stream to read what was logged. */
  destination?: DestinationStream;
}

/** Paths never written to logs, whatever a plugin passes in. */
const REDACT = [
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'secretKey',
  '*.secretKey',
  'passphrase',
  '*.passphrase',
];

export function createLogger(options: LogOptions): Logger {
  const base = { level: options.level, base: { pid: process.pid }, redact: { paths: REDACT, censor: '[redacted]' } };
  if (options.format === 'pretty') {
    const stream = pretty({
      sync: true,
      colorize: process.stdout.isTTY,
      ignore: 'pid,hostname',
      destination: options.destination ?? 1,
    });
    return pino(base, stream);
  }
  return pino(base, options.destination ?? pino.destination({ fd: 1, sync: true }));
}

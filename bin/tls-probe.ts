import { connect } from 'node:tls';

/**
 * Whether `url`'s host and port answer a TLS handshake (certificate not checked): what a plain
 * `http://` request that the server hung up on was talking to.
 */
export function speaksTls(url: string, timeoutMs = 2_000): Promise<boolean> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    const socket = connect({
      host: target.hostname.replace(/^\[|\]$/g, ''),
      port: Number(target.port || 80),
      rejectUnauthorized: false,
      servername: undefined,
    });
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('secureConnect', () => done(true));
    socket.once('error', () => done(false));
  });
}

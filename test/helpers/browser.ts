import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where Debian and others put Chromium; CHROMIUM_PATH first. */
const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/snap/bin/chromium'];

/**
 * A real, headless Chromium driven by playwright-core (which downloads no browser). Fails with what
 * to do when none is installed: browser tests never skip.
 */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = CANDIDATES.find((path): path is string => !!path && existsSync(path));
  if (!executablePath) {
    throw new Error(`no Chromium found (looked at ${CANDIDATES.filter(Boolean).join(', ')}): install it with \`apt-get install chromium\` (.ci/run does), or set CHROMIUM_PATH`);
  }
  // No sandbox: CI runs the tests as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where Debian and others put Chromium; CHROMIUM_PATH first. */
const CANDIDATES = [
  process.env.CHROMIUM_PATH,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/snap/bin/chromium',
];

/**
 * A real, headless Chromium driven by playwright-core (which downloads no browser). Fails with what
 * to do when none is installed: browser tests never skip.
 */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = CANDIDATES.find((path): path is string => !!path && existsSync(path));
  if (!executablePath) {
    throw new Error(
      `no Chromium found (looked at ${CANDIDATES.filter(Boolean).join(', ')}): install it with \`apt-get install chromium\` (.ci/run does), or set CHROMIUM_PATH`,
    );
  }
  // No sandbox: CI runs the tests as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

/** Where page tests keep their screenshots (git-ignored), and the two widths every page is shown at. */
export const SCREENSHOTS = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));
export const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

/** A page of `url` with every console error and uncaught exception collected. */
export async function openPage(
  browser: Browser,
  url: string,
  size: { width: number; height: number },
  options: { colorScheme?: 'light' | 'dark' } = {},
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: size, ...options });
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url);
  return { page, errors };
}

/** The page fits its width: nothing to scroll sideways (on a phone, that is the first thing that breaks). */
export const fitsWidth = (page: Page): Promise<boolean> =>
  page.evaluate(() => {
    // In the page (the test's TypeScript has no DOM types).
    const page = globalThis as unknown as {
      document: { documentElement: { scrollWidth: number } };
      innerWidth: number;
    };
    return page.document.documentElement.scrollWidth <= page.innerWidth;
  });

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { startTestNode, waitFor, type TestNode } from '../helpers/test-node.js';

// The explorer page in a real Chromium, against a validator making a block every 200 ms.
const SCREENSHOTS = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));
const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
let node: TestNode;
let browser: Browser;

beforeAll(async () => {
  node = await startTestNode({ validator: { blockTime: 200 } });
  browser = await launchBrowser();
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await node?.stop();
});

/** A page with every console error and uncaught exception collected. */
async function open(path: string, size: { width: number; height: number }): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: size });
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${node.url}${path}`);
  return { page, errors };
}

const shownHead = async (page: Page): Promise<number> => Number(await page.getByTestId('head-height').textContent());

describe('the explorer page', { timeout: 60_000 }, () => {
  it('is where a browser asking the node for / goes; JSON-RPC clients and the page files keep their answers', async () => {
    const asked = await fetch(`${node.url}/`, { headers: { accept: 'text/html,application/xhtml+xml' }, redirect: 'manual' });
    expect({ status: asked.status, location: asked.headers.get('location') }).toEqual({ status: 302, location: '/ui/' });
    expect((await fetch(`${node.url}/`)).status).toBe(405);
    const script = await fetch(`${node.url}/ui/app.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await fetch(`${node.url}/ui/missing.js`)).status).toBe(404);
    expect((await fetch(`${node.url}/ui/..%2Fpackage.json`)).status).toBe(404);
  });

  for (const [name, size] of Object.entries(WIDTHS)) {
    it(`shows the head advancing live and the latest blocks, with no console errors (${name} width)`, async () => {
      const { page, errors } = await open('/', size);
      expect(new URL(page.url()).pathname).toBe('/ui/');
      await waitFor(() => shownHead(page), (height) => height > 0, 15_000, 'the head on screen');
      const first = await shownHead(page);
      // Live: the number changes on screen as blocks come, without a reload.
      await waitFor(() => shownHead(page), (height) => height >= first + 3, 15_000, 'the head to advance on screen');
      const rows = page.getByTestId('latest-blocks').locator('tr');
      await waitFor(() => rows.count(), (count) => count >= 3, 10_000, 'the latest blocks');
      expect(Number(await rows.first().locator('td').first().textContent())).toBeGreaterThanOrEqual(first);
      await page.screenshot({ path: join(SCREENSHOTS, `home-${name}.png`), fullPage: true });
      expect(errors).toEqual([]);
      await page.close();
    });
  }
});

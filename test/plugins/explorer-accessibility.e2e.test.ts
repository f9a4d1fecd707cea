import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { devnetKey, generateKeyPair, SvcClient, UNIT } from '../../sdk/index.js';
import { launchBrowser, openPage, WIDTHS } from '../helpers/browser.js';
import { startTestNode, waitFor, type TestNode } from '../helpers/test-node.js';

// The explorer used the way people who cannot use a mouse or see low contrast use it, in a real
// Chromium: every control named, everything reachable by keyboard with a visible focus, and every
// piece of text at WCAG AA contrast in the light and the dark scheme.
const CHECKS = fileURLToPath(new URL('../helpers/accessibility.browser.js', import.meta.url));
let node: TestNode;
let browser: Browser;
let txHash: string;
const funded = generateKeyPair().address;

beforeAll(async () => {
  node = await startTestNode({ validator: { blockTime: 200 } });
  browser = await launchBrowser();
  const client = new SvcClient(node.url);
  txHash = (await client.transfer(devnetKey('account', 3), funded, 'OMC', UNIT)).hash;
  await client.waitForTransaction(txHash);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await node?.stop();
});

type Focus = { id: string; text: string; outlined: boolean };
const focus = (page: Page): Promise<Focus> => page.evaluate('window.svcFocus()') as Promise<Focus>;

/** Presses Tab until the focus is where `wanted` says (at most 40 times), and returns it. */
async function tabTo(page: Page, wanted: (focus: Focus) => boolean, what: string): Promise<Focus> {
  for (let presses = 0; presses < 40; presses++) {
    await page.keyboard.press('Tab');
    const now = await focus(page);
    if (wanted(now)) return now;
  }
  throw new Error(`Tab never reached ${what}`);
}

async function withChecks(page: Page): Promise<void> {
  await page.addScriptTag({ path: CHECKS });
}

describe('the explorer is accessible', { timeout: 60_000 }, () => {
  it('is used by keyboard alone: search, the navigation and the faucet form, with the focus always visible', async () => {
    const { page, errors } = await openPage(browser, `${node.url}/ui/`, WIDTHS.desktop);
    await page.getByTestId('head-height').waitFor();
    await withChecks(page);
    const search = await tabTo(page, (f) => f.id === 'search', 'the search box');
    expect(search.outlined).toBe(true);
    await page.keyboard.type('1');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Block 1' }).waitFor();

    // Back through the header to the navigation's Faucet link, followed with Enter.
    const link = await tabTo(page, (f) => f.text === 'Faucet', 'the Faucet link');
    expect(link.outlined).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Faucet' }).waitFor();
    await withChecks(page);
    expect((await tabTo(page, (f) => f.id === 'faucet-address', 'the faucet address field')).outlined).toBe(true);
    await page.keyboard.type('svc1nope');
    // Said as it is typed, in an alert a screen reader announces, tied to the field.
    await page.getByRole('alert').filter({ hasText: 'Not an address' }).waitFor();
    expect(await page.getByLabel('Address to fund').getAttribute('aria-describedby')).toBe('faucet-error');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(generateKeyPair().address);
    await page.keyboard.press('Enter');
    await page.getByTestId('faucet-granted').waitFor({ timeout: 15_000 });
    expect(errors).toEqual([]);
    await page.close();
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`names every control and image, and keeps every text at AA contrast (${colorScheme} scheme)`, async () => {
      const paths = [
        '/ui/',
        '/ui/#/block/1',
        `/ui/#/tx/${txHash}`,
        `/ui/#/account/${funded}`,
        '/ui/#/validators',
        '/ui/#/compute',
        '/ui/#/storage',
        '/ui/#/node',
        '/ui/#/faucet',
      ];
      const { page, errors } = await openPage(browser, `${node.url}/ui/`, WIDTHS.desktop, { colorScheme });
      await page.getByTestId('head-height').waitFor();
      const findings: Record<string, unknown> = {};
      for (const path of paths) {
        await page.goto(`${node.url}${path}`);
        await page.locator('main h2').first().waitFor();
        // A page's loading text is replaced by its data: check what a reader finally sees.
        await waitFor(
          () => page.getByText(/^Loading/).count(),
          (count) => count === 0,
          10_000,
          `${path} to load`,
        );
        if (path.endsWith('faucet')) {
          await page.getByLabel('Address to fund').fill('svc1nope');
          await page.getByRole('alert').waitFor();
        }
        await withChecks(page);
        const low = await page.evaluate('window.svcLowContrast()');
        const unnamed = await page.evaluate('window.svcUnnamed()');
        if ((low as unknown[]).length > 0 || (unnamed as unknown[]).length > 0) findings[path] = { low, unnamed };
      }
      expect(findings).toEqual({});
      expect(errors).toEqual([]);
      await page.close();
    });
  }
});

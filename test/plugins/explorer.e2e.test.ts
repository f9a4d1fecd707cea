import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { devnetKey, generateKeyPair, SvcClient, UNIT } from '../../sdk/index.js';
import { fitsWidth, launchBrowser, openPage, SCREENSHOTS, WIDTHS } from '../helpers/browser.js';
import { startTestNode, waitFor, type TestNode } from '../helpers/test-node.js';

// The explorer page in a real Chromium, against a validator making a block every 200 ms.
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

const open = (path: string, size: { width: number; height: number }) => openPage(browser, `${node.url}${path}`, size);

const shownHead = async (page: Page): Promise<number> => Number(await page.getByTestId('head-height').textContent());

describe('the explorer page', { timeout: 60_000 }, () => {
  it('is where a browser asking the node for / goes; JSON-RPC clients and the page files keep their answers', async () => {
    const asked = await fetch(`${node.url}/`, {
      headers: { accept: 'text/html,application/xhtml+xml' },
      redirect: 'manual',
    });
    expect({ status: asked.status, location: asked.headers.get('location') }).toEqual({
      status: 302,
      location: '/ui/',
    });
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
      await waitFor(
        () => shownHead(page),
        (height) => height > 0,
        15_000,
        'the head on screen',
      );
      const first = await shownHead(page);
      // Live: the number changes on screen as blocks come, without a reload.
      await waitFor(
        () => shownHead(page),
        (height) => height >= first + 3,
        15_000,
        'the head to advance on screen',
      );
      const rows = page.getByTestId('latest-blocks').locator('tr');
      await waitFor(
        () => rows.count(),
        (count) => count >= 3,
        10_000,
        'the latest blocks',
      );
      expect(Number(await rows.first().locator('td').first().textContent())).toBeGreaterThanOrEqual(first);
      // A transaction mined while the page is open joins the latest transactions, live.
      const tx = await new SvcClient(node.url).transfer(
        devnetKey('account', 5),
        generateKeyPair().address,
        'OMC',
        UNIT,
      );
      await page.getByTestId('latest-transactions').getByTitle(tx.hash).waitFor({ timeout: 15_000 });
      // Charts of the last few hundred blocks, kept live: the block-time chart's words name a block at or past the head seen.
      await page.getByTestId('chart-transactions').locator('canvas').waitFor();
      const latestCharted = async (): Promise<number> =>
        Number(
          /at block (\d+)$/.exec(
            (await page.getByTestId('chart-block-time').getByRole('img').getAttribute('aria-label')) ?? '',
          )?.[1] ?? 0,
        );
      await waitFor(latestCharted, (height) => height >= first + 3, 15_000, 'the charts to follow the head');
      await page.screenshot({ path: join(SCREENSHOTS, `home-${name}.png`), fullPage: true });
      expect(await fitsWidth(page)).toBe(true);
      expect(errors).toEqual([]);
      await page.close();
    });
  }

  it('finds a block by number, a transaction by hash and an account by address from the search box, and says inline what it cannot find', async () => {
    const client = new SvcClient(node.url);
    const to = generateKeyPair().address;
    const tx = await client.transfer(devnetKey('account', 3), to, 'OMC', 7n * UNIT);
    const receipt = await client.waitForTransaction(tx.hash);
    for (const [name, size] of Object.entries(WIDTHS)) {
      const { page, errors } = await open('/ui/', size);
      const search = async (query: string): Promise<void> => {
        await page.getByLabel('Search').fill(query);
        await page.getByRole('button', { name: 'Go' }).click();
      };
      await search(String(receipt.blockNumber));
      await page.getByRole('heading', { name: `Block ${receipt.blockNumber}` }).waitFor();
      await page.getByTestId('block-transactions').getByText(tx.hash).waitFor();
      await page.screenshot({ path: join(SCREENSHOTS, `block-${name}.png`), fullPage: true });
      await search(tx.hash);
      await page.getByRole('heading', { name: 'Transaction' }).waitFor();
      await page.getByText('success', { exact: true }).waitFor();
      // Its payload's amount in tokens, as a person reads it.
      expect(await page.getByTestId('tx-payload').textContent()).toContain('"amount": "7 OMC"');
      await page.screenshot({ path: join(SCREENSHOTS, `transaction-${name}.png`), fullPage: true });
      await search(to);
      await page.getByRole('heading', { name: 'Account' }).waitFor();
      expect(await page.getByTestId('balance-omc').textContent()).toBe('7');
      // Its transactions: the transfer that paid it.
      await page.getByTestId('account-transactions').getByTitle(tx.hash).waitFor();
      await page.screenshot({ path: join(SCREENSHOTS, `account-${name}.png`), fullPage: true });
      expect(await fitsWidth(page)).toBe(true);
      // The same account by its 0x name, from the search box and by URL: shown under its svc1 name.
      await page.goto(`${node.url}/ui/#/`);
      await search(`0x${to.slice(4).toUpperCase()}`);
      await page.getByTestId('account-transactions').getByTitle(tx.hash).waitFor();
      expect(await page.getByTestId('balance-omc').textContent()).toBe('7');
      await page.goto(`${node.url}/ui/#/`);
      await page.goto(`${node.url}/ui/#/account/0x${to.slice(4)}`);
      await page.getByTestId('account-transactions').getByTitle(tx.hash).waitFor();
      expect(await page.getByTestId('balance-omc').textContent()).toBe('7');
      const headerHeight = (await page.locator('header').boundingBox())!.height;
      await search('svc1nothex');
      expect(await page.getByRole('alert').textContent()).toMatch(/^Type a block number, a hash .* or an address/);
      // Shown over the page below the form: the header keeps its height.
      expect((await page.locator('header').boundingBox())!.height).toBe(headerHeight);
      await page.screenshot({ path: join(SCREENSHOTS, `search-error-${name}.png`) });
      expect(await page.getByLabel('Search').getAttribute('aria-invalid')).toBe('true');
      await search(`0x${'ab'.repeat(32)}`);
      await page
        .getByRole('alert')
        .filter({ hasText: `No block and no transaction has the hash 0x${'ab'.repeat(32)}.` })
        .waitFor();
      // Another page: the message was about the last query, and goes.
      await page.getByRole('link', { name: 'Validators' }).click();
      await page.getByRole('alert').waitFor({ state: 'detached' });
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it('grants devnet tokens from the faucet form, then counts the cooldown down; an address typed wrong is refused inline', async () => {
    const { page, errors } = await open('/ui/#/faucet', WIDTHS.phone);
    const field = page.getByLabel('Address to fund');
    await field.fill('svc1 not an address');
    expect(await page.getByRole('alert').textContent()).toBe(
      'Not an address: an address is svc1 or 0x followed by 40 hex digits.',
    );
    expect(await page.getByRole('button', { name: 'Request devnet tokens' }).isDisabled()).toBe(true);
    const address = generateKeyPair().address;
    await field.fill(address);
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.getByRole('button', { name: 'Request devnet tokens' }).click();
    expect(await page.getByTestId('faucet-granted').textContent()).toMatch(/^Granted \S+ OMC and \S+ OGT to svc1/);
    const first = Number(/in (\d+) s/.exec((await page.getByTestId('faucet-cooldown').textContent())!)![1]);
    expect(first).toBeGreaterThan(0);
    // It counts down on screen, without a reload.
    await waitFor(
      async () => Number(/in (\d+) s/.exec((await page.getByTestId('faucet-cooldown').textContent())!)![1]),
      (now) => now < first,
      10_000,
      'the cooldown to count down',
    );
    expect(await page.getByRole('button', { name: 'Request devnet tokens' }).isDisabled()).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, 'faucet-phone.png'), fullPage: true });
    await page.setViewportSize(WIDTHS.desktop);
    await page.screenshot({ path: join(SCREENSHOTS, 'faucet-desktop.png'), fullPage: true });
    expect(await fitsWidth(page)).toBe(true);
    expect((await new SvcClient(node.url).getBalance(address)).omc).toBeGreaterThan(0n);
    expect(errors).toEqual([]);
    await page.close();
  });
});

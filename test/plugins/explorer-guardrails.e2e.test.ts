import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { devnetKey, generateKeyPair, SvcClient, UNIT } from '../../sdk/index.js';
import { launchBrowser, openPage, SCREENSHOTS, WIDTHS } from '../helpers/browser.js';
import { decodablePng } from '../helpers/media.js';
import { startTestNode, tempDir, waitFor, type TestNode } from '../helpers/test-node.js';
import { plainDevnet } from '../helpers/plain-devnet.js';

// The explorer on a node with guardrails, in a real Chromium: off unless the config lists it; then
// the page's files load, and it asks for a token before it shows anything.
const TOKEN = 'explorer-token-0123456789abcdef';
const nodes: TestNode[] = [];
let browser: Browser;

async function guardedNode(plugins: string[]): Promise<TestNode> {
  const tokenFile = join(tempDir(), 'tokens');
  writeFileSync(tokenFile, `${TOKEN}\n`);
  const node = await startTestNode({
    ...plainDevnet(),
    guardrails: true,
    auth: { tokenFile },
    plugins,
    validator: { blockTime: 200 },
  });
  nodes.push(node);
  return node;
}

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  for (const node of nodes) await node.stop();
});

describe('the explorer under guardrails', { timeout: 90_000 }, () => {
  it('is off unless the config lists it', async () => {
    const node = await guardedNode([]);
    expect((await fetch(`${node.url}/ui/`)).status).toBe(404);
    expect((await fetch(`${node.url}/`, { headers: { accept: 'text/html' }, redirect: 'manual' })).status).toBe(405);
  });

  it('listed, asks for a token, refuses a wrong one inline, then shows the chain live with the right one', async () => {
    const node = await guardedNode(['explorer', 'omp-storage']);
    // An image kept under a deal: its bytes come from /ipfs/<cid>, a protected route an <img> cannot send a token to.
    const client = new SvcClient({ url: node.url, token: TOKEN });
    const operator = node.node.keys.operator.address;
    const requester = generateKeyPair();
    for (const [to, asset, amount] of [
      [operator, 'OGT', 1000n],
      [requester.address, 'OMC', 10n],
    ] as const) {
      await client.waitForTransaction((await client.transfer(devnetKey('account', 0), to, asset, amount * UNIT)).hash);
    }
    await client.ompRegisterStorageNode({
      operator,
      storage_capacity_gb: 1,
      bond_ogt: 500,
      supported_formats: ['image'],
    });
    await waitFor(
      async () => (await client.ompStorageStatus()).status,
      (status) => status === 'active',
      20_000,
      'the storage registration',
    );
    const object = await client.uploadObject(decodablePng(48, 32));
    const { dealId } = await client.createDeal(requester, {
      object,
      provider: operator,
      replicas: 1,
      durationBlocks: 10_000,
      price: 1n,
    });
    expect((await client.waitForDeal(dealId, { timeoutMs: 30_000 })).status).toBe('active');

    const { page, errors } = await openPage(browser, `${node.url}/`, WIDTHS.phone);
    expect(new URL(page.url()).pathname).toBe('/ui/');
    const field = page.getByLabel('Access token');
    await field.waitFor();
    // Nothing was asked of the node before the token: no refusal to show.
    expect(errors).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'token-phone.png'), fullPage: true });
    await page.setViewportSize(WIDTHS.desktop);
    await page.screenshot({ path: join(SCREENSHOTS, 'token-desktop.png'), fullPage: true });

    await field.fill('not-the-token');
    await page.getByRole('button', { name: 'Open the explorer' }).click();
    await page.getByRole('alert').filter({ hasText: 'The node did not accept this token (unauthorized).' }).waitFor();
    // The browser reports the refused call (HTTP 401) itself; nothing else went wrong.
    expect(errors.every((error) => /401/.test(error))).toBe(true);
    errors.length = 0;

    await field.fill(TOKEN);
    await page.getByRole('button', { name: 'Open the explorer' }).click();
    const head = async (): Promise<number> => Number(await page.getByTestId('head-height').textContent());
    await waitFor(head, (height) => height > 0, 15_000, 'the head on screen');
    const first = await head();
    // Live over the WebSocket, whose handshake carried the token as a subprotocol.
    await waitFor(head, (height) => height >= first + 3, 15_000, 'the head to advance on screen');
    // Another page of the same tab keeps the token.
    await page.getByRole('link', { name: 'Node' }).click();
    await page.getByTestId('node-health').filter({ hasText: 'healthy' }).waitFor();
    await page.reload();
    await page.getByTestId('node-health').filter({ hasText: 'healthy' }).waitFor();
    // The image, fetched with the token and drawn from a blob URL: decoded at its real size.
    await page.goto(`${node.url}/ui/#/object/${object.cid}`);
    const image = page.getByRole('img', { name: `Stored object ${object.cid} (image/png)` });
    await waitFor(
      () => image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
      (width) => width === 48,
      15_000,
      'the image to load',
    );
    expect(await image.getAttribute('src')).toMatch(/^blob:/);
    expect(errors).toEqual([]);
    await page.close();
  });
});

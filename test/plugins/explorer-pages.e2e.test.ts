import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { devnetKey, generateKeyPair, SvcClient, UNIT } from '../../sdk/index.js';
import type { P2pService } from '../../p2p/service.js';
import { fitsWidth, launchBrowser, openPage, SCREENSHOTS, WIDTHS } from '../helpers/browser.js';
import { decodablePng, media } from '../helpers/media.js';
import { startTestNode, syncStatus, waitFor, type TestNode } from '../helpers/test-node.js';
import { fixture } from '../helpers/wat.js';
import { plainDevnet } from '../helpers/plain-devnet.js';

// The explorer's validators, compute, storage and node pages in a real Chromium, against a validator
// (200 ms blocks) that also offers compute (wasm) and storage (images and video), and a follower.
let node: TestNode;
let follower: TestNode;
let client: SvcClient;
let browser: Browser;
let image: string;
let video: string;
const requester = generateKeyPair();

beforeAll(async () => {
  node = await startTestNode({ ...plainDevnet(), validator: { blockTime: 200 } });
  client = new SvcClient(node.url);
  follower = await startTestNode({
    ...plainDevnet(),
    role: 'full',
    p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [node.node.service<P2pService>('p2p').listenAddresses[0]!] },
  });
  browser = await launchBrowser();
  mkdirSync(SCREENSHOTS, { recursive: true });
  const operator = node.node.keys.operator.address;
  const funder = devnetKey('account', 0);
  for (const [to, asset, amount] of [
    [operator, 'OGT', 2000n],
    [requester.address, 'OMC', 100n],
  ] as const) {
    await client.waitForTransaction((await client.transfer(funder, to, asset, amount * UNIT)).hash);
  }
  await client.oonRegisterNode({ operator, capabilities: ['wasm'], bond_ogt: 1000, max_concurrent_jobs: 2 });
  await client.ompRegisterStorageNode({
    operator,
    storage_capacity_gb: 1,
    bond_ogt: 500,
    supported_formats: ['image', 'video'],
  });
  await waitFor(
    async () => [(await client.oonNodeStatus()).status, (await client.ompStorageStatus()).status],
    (s) => s.every((status) => status === 'active'),
    20_000,
    'both registrations',
  );
  const keep = async (bytes: Uint8Array): Promise<string> => {
    const object = await client.uploadObject(bytes);
    const { dealId } = await client.createDeal(requester, {
      object,
      provider: operator,
      replicas: 1,
      durationBlocks: 10_000,
      price: 1n,
    });
    expect((await client.waitForDeal(dealId, { timeoutMs: 30_000 })).status).toBe('active');
    return object.cid;
  };
  image = await keep(decodablePng(96, 64));
  video = await keep(media.mp4(4096));
  await waitFor(() => syncStatus(follower).synced, Boolean, 20_000, 'the follower to sync');
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await follower?.stop();
  await node?.stop();
});

const open = (path: string, size: { width: number; height: number }) => openPage(browser, `${node.url}${path}`, size);

describe('the explorer pages for validators, compute, storage and the node', { timeout: 60_000 }, () => {
  it('shows the validator set with its power, and where consensus stands', async () => {
    for (const [name, size] of Object.entries(WIDTHS)) {
      const { page, errors } = await open('/ui/#/validators', size);
      await page.getByRole('heading', { name: 'Validators' }).waitFor();
      const rows = page.getByTestId('validators').locator('tr');
      expect(await rows.count()).toBe(1);
      expect(await rows.first().textContent()).toContain('genesis validator');
      expect(await page.getByLabel('Validator set').textContent()).toMatch(/Consensus hereproducing/);
      await page.screenshot({ path: join(SCREENSHOTS, `validators-${name}.png`), fullPage: true });
      expect(await fitsWidth(page)).toBe(true);
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it('lists the compute providers, and a job submitted while the page is open moves to finalized on screen; its page shows the output', async () => {
    const { page, errors } = await open('/ui/#/compute', WIDTHS.desktop);
    await page.getByTestId('compute-providers').getByText('wasm').waitFor();
    await page.getByText('No job yet.').waitFor();
    const { jobId } = await client.submitJob(requester, {
      runtime: 'wasm',
      code: fixture('upper'),
      input: new TextEncoder().encode('seen in a browser'),
      gasLimit: 1_000_000n,
      gasPrice: 1n,
    });
    const row = page
      .getByTestId('jobs')
      .locator('tr')
      .filter({ has: page.getByTitle(jobId) });
    // Live over the `jobs` subscription: no reload between the statuses.
    await row.getByTestId('job-status').filter({ hasText: 'finalized' }).waitFor({ timeout: 30_000 });
    // Jobs over time, sampled while the page is open: a chart drawn on a canvas, its latest values told in words.
    await page.getByTestId('chart-jobs').locator('canvas').waitFor();
    await waitFor(
      () => page.getByTestId('chart-jobs').getByRole('img').getAttribute('aria-label'),
      (label) => /finalized now [1-9]/.test(label ?? ''),
      10_000,
      'the jobs chart to count the job',
    );
    await page.screenshot({ path: join(SCREENSHOTS, 'compute-desktop.png'), fullPage: true });
    await row.getByTitle(jobId).click();
    await page.getByRole('heading', { name: 'Job' }).waitFor();
    expect(await page.getByTestId('job-output').textContent()).toBe('SEEN IN A BROWSER');
    expect(await page.getByTestId('job-status').textContent()).toBe('finalized');
    await page.screenshot({ path: join(SCREENSHOTS, 'job-desktop.png'), fullPage: true });
    await page.setViewportSize(WIDTHS.phone);
    await page.screenshot({ path: join(SCREENSHOTS, 'job-phone.png'), fullPage: true });
    expect(await fitsWidth(page)).toBe(true);
    await page.goto(`${node.url}/ui/#/compute`);
    await page.getByTestId('jobs').getByTitle(jobId).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'compute-phone.png'), fullPage: true });
    expect(await fitsWidth(page)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows the storage providers and the stored objects: the image drawn from /ipfs/<cid>, the video playable on its page', async () => {
    for (const [name, size] of Object.entries(WIDTHS)) {
      const { page, errors } = await open('/ui/#/storage', size);
      await page.getByTestId('storage-providers').getByText('image, video').waitFor();
      await page.getByTestId('chart-stored').locator('canvas').waitFor();
      const thumbnail = page.getByTestId('objects').getByRole('img', { name: `Stored object ${image} (image/png)` });
      await thumbnail.waitFor();
      // Decoded by the browser from the bytes the node served: its real size.
      await waitFor(
        () => thumbnail.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
        (width) => width === 96,
        10_000,
        'the image to load',
      );
      await page.screenshot({ path: join(SCREENSHOTS, `storage-${name}.png`), fullPage: true });
      expect(await fitsWidth(page)).toBe(true);

      await page.getByTestId('objects').getByTitle(image).click();
      await page.getByRole('heading', { name: 'Object' }).waitFor();
      await waitFor(
        () =>
          page
            .getByRole('img', { name: `Stored object ${image} (image/png)` })
            .evaluate((img) => (img as unknown as { naturalHeight: number }).naturalHeight),
        (height) => height === 64,
        10_000,
        'the image to load',
      );
      expect(await page.getByTestId('object-deals').locator('tr').first().textContent()).toContain('active');
      await page.screenshot({ path: join(SCREENSHOTS, `object-image-${name}.png`), fullPage: true });

      // The video's page asks the node for its bytes (a media element reads by ranges).
      const fetched = page.waitForResponse((response) => response.url().endsWith(`/ipfs/${video}`) && response.ok());
      await page.goto(`${node.url}/ui/#/object/${video}`);
      const player = page.getByLabel(`Stored video ${video} (video/mp4)`);
      await player.waitFor();
      expect(await player.getAttribute('src')).toBe(`/ipfs/${video}`);
      expect((await fetched).headers()['content-type']).toBe('video/mp4');
      await page.screenshot({ path: join(SCREENSHOTS, `object-video-${name}.png`), fullPage: true });
      expect(await fitsWidth(page)).toBe(true);
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it('shows the node: healthy, synced, its plugins and its peer, refreshed as it goes', async () => {
    for (const [name, size] of Object.entries(WIDTHS)) {
      const { page, errors } = await open('/ui/#/node', size);
      await page.getByTestId('node-health').filter({ hasText: 'healthy' }).waitFor();
      expect(await page.getByLabel('Node', { exact: true }).textContent()).toContain('synced');
      const followerId = follower.node.service<P2pService>('p2p').peerId;
      await page.getByTestId('peers').getByTitle(followerId).waitFor();
      // Read again every 2 s: the head in the details moves on without a reload.
      const headShown = async (): Promise<number> =>
        Number(/head\s*(\d+)/.exec((await page.getByLabel('Health details').textContent())!)?.[1]);
      const before = await headShown();
      await waitFor(headShown, (head) => head > before, 10_000, 'the node page to refresh');
      // The mempool and the peers over time, drawn once two samples are in.
      await page.getByTestId('chart-node').locator('canvas').waitFor();
      expect(await page.getByTestId('chart-node').getByRole('img').getAttribute('aria-label')).toMatch(
        /pending transactions now \d+, peers now 1$/,
      );
      await page.screenshot({ path: join(SCREENSHOTS, `node-${name}.png`), fullPage: true });
      expect(await fitsWidth(page)).toBe(true);
      expect(errors).toEqual([]);
      await page.close();
    }
  });
});

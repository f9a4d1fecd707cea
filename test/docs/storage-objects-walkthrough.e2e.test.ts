import { readFileSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { startNodeProcess, type RunningNode } from '../helpers/cli.js';
import { tempDir, waitFor } from '../helpers/test-node.js';
import { bash, walkthrough, withoutWaits } from '../helpers/walkthrough.js';

const DOC = 'docs/storage-objects.md';
const CID = 'bafkreigcjsnzqbtynfrg5elmtvprapethj2pvjbvbfrwk65qn5irtx5do4';

const nodes: RunningNode[] = [];
const dirs: string[] = [];
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
  await Promise.all(nodes.map((node) => node.stop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const dir = (): string => {
  const made = tempDir();
  dirs.push(made);
  return made;
};

describe('the storage walkthrough', () => {
  it('stores an image with two replicas on a three-node devnet, verbatim but for ports and paths, and a browser shows it from the validator, from either provider', async () => {
    const doc = readFileSync(DOC, 'utf8');
    expect(doc).toContain('svc-node start --role full --data-dir ./devnet/storage-2');
    const validator = await startNodeProcess([
      '--role',
      'validator',
      '--data-dir',
      dir(),
      '--bind',
      '127.0.0.1:0',
      '--block-time',
      '200',
    ]);
    nodes.push(validator);
    const listening = /p2p listening on (\/ip4\/127\.0\.0\.1\/tcp\/\d+\/p2p\/\w+)/;
    const p2p = listening.exec(
      await waitFor(
        () => validator.output(),
        (out) => listening.test(out),
        10_000,
        'the p2p line',
      ),
    )![1]!;
    const storage = await Promise.all(
      [1, 2].map(() =>
        startNodeProcess(['--role', 'full', '--data-dir', dir(), '--bind', '127.0.0.1:0', '--bootstrap-peers', p2p]),
      ),
    );
    nodes.push(...storage);
    for (const node of storage)
      await waitFor(
        async () => (await fetch(`${node.url}/health`)).status,
        (status) => status === 200,
        15_000,
        'a storage node to sync',
      );

    const out = dir();
    const script = walkthrough(DOC, 'three-nodes')
      .replaceAll('gradient-copy.png', `${out}/gradient-copy.png`)
      .replaceAll('http://127.0.0.1:8545', validator.url)
      .replaceAll('http://127.0.0.1:8546', storage[0]!.url)
      .replaceAll('http://127.0.0.1:8547', storage[1]!.url);
    const result = await bash(script);
    expect(withoutWaits(result.stderr)).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${CID}  461 bytes  image/png`);
    expect(result.stdout).toMatch(/^deal 0x[0-9a-f]{64}: active/m);
    expect(result.stdout).toContain('wrote 461 bytes');
    expect(readFileSync(`${out}/gradient-copy.png`).equals(readFileSync('examples/objects/gradient.png'))).toBe(true);

    // The browser, as the doc says: the validator's /ipfs/<cid>, then again with the first provider stopped.
    browser = await launchBrowser();
    const page = await browser.newPage();
    const errors: string[] = [];
    // The browser asks for /favicon.ico on its own (the node has no icon before its web page): any other failure counts.
    page.on('response', (response) =>
      response.status() >= 400 && !response.url().endsWith('/favicon.ico')
        ? errors.push(`${response.status()} ${response.url()}`)
        : undefined,
    );
    page.on('console', (message) =>
      message.type() === 'error' && !message.text().startsWith('Failed to load resource')
        ? errors.push(message.text())
        : undefined,
    );
    page.on('pageerror', (error) => errors.push(error.message));
    const shown = async (): Promise<{
      status: number | undefined;
      type: string | undefined;
      width: number;
      height: number;
    }> => {
      const response = await page.goto(`${validator.url}/ipfs/${CID}`);
      // Run in the page (a string: the test's own types know no DOM).
      const size = await page.evaluate<{ width: number; height: number }>(`(async () => {
        const img = document.querySelector('img');
        await img.decode();
        return { width: img.naturalWidth, height: img.naturalHeight };
      })()`);
      return { status: response?.status(), type: response?.headers()['content-type'], ...size };
    };
    expect(await shown()).toEqual({ status: 200, type: 'image/png', width: 16, height: 16 });
    await storage[0]!.stop('SIGKILL');
    expect(await shown()).toEqual({ status: 200, type: 'image/png', width: 16, height: 16 });
    expect(errors).toEqual([]);
  }, 120_000);
});

import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Abi } from 'viem';
import { accountAddress, devnetKey, SvcClient, toEthAddress, toHex, UNIT } from '../../sdk/index.js';
import { fitsWidth, launchBrowser, openPage, SCREENSHOTS, WIDTHS } from '../helpers/browser.js';
import { startTestNode, type TestNode } from '../helpers/test-node.js';
import { contracts } from '../helpers/contracts.js';
import { fixture } from '../helpers/wat.js';

// The explorer's contract views in a real Chromium: a contract account (code size, creator), a
// transaction's decoded logs, and a failed call's revert reason.
let node: TestNode;
let browser: Browser;
let token: string;
let creationHash: string;
let transferHash: string;
let failedHash: string;
let countedHash: string;
let customHash: string;
const owner = devnetKey('account', 0);
const friend = devnetKey('account', 1);
const artifact = (name: string) => contracts()[name] as unknown as { abi: Abi; bytecode: `0x${string}` };

beforeAll(async () => {
  node = await startTestNode({ validator: { blockTime: 100 } });
  browser = await launchBrowser();
  mkdirSync(SCREENSHOTS, { recursive: true });
  const client = new SvcClient(node.url);
  const deployed = await client.deployContract(owner, { ...artifact('Token'), args: [1_000n] });
  await client.waitForTransaction(deployed.txHash, { pollMs: 20 });
  token = deployed.address;
  creationHash = deployed.txHash;
  transferHash = (
    await client.callContract(owner, {
      address: token,
      abi: artifact('Token').abi,
      functionName: 'transfer',
      args: [toEthAddress(friend.address), 25n],
    })
  ).hash;
  await client.waitForTransaction(transferHash, { pollMs: 20 });
  const probe = await client.deployContract(owner, artifact('Probe'));
  await client.waitForTransaction(probe.txHash, { pollMs: 20 });
  // A gas limit given: the estimate would refuse a call that reverts.
  failedHash = (
    await client.callContract(owner, {
      address: probe.address,
      abi: artifact('Probe').abi,
      functionName: 'failWithReason',
      gasLimit: 100_000,
    })
  ).hash;
  await client.waitForTransaction(failedHash, { pollMs: 20 });
  // The node keeps Probe's ABI (as `svc contract deploy` gives it): its events and custom errors decode by name.
  await client.rpcCall('svc_setContractAbi', [probe.address, artifact('Probe').abi]);
  countedHash = (
    await client.callContract(owner, {
      address: probe.address,
      abi: artifact('Probe').abi,
      functionName: 'count',
      args: [2n],
    })
  ).hash;
  await client.waitForTransaction(countedHash, { pollMs: 20 });
  customHash = (
    await client.callContract(owner, {
      address: probe.address,
      abi: artifact('Probe').abi,
      functionName: 'failWithCustom',
      gasLimit: 100_000,
    })
  ).hash;
  await client.waitForTransaction(customHash, { pollMs: 20 });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await node?.stop();
});

describe('the explorer shows contracts', { timeout: 60_000 }, () => {
  it("a contract's page: its code size and creator, linked", async () => {
    for (const [name, size] of Object.entries(WIDTHS)) {
      const { page, errors } = await openPage(browser, `${node.url}/ui/#/account/${token}`, size);
      await page.getByTestId('code-size').waitFor();
      expect(await page.getByTestId('code-size').textContent()).toMatch(/^\d{3,5} bytes$/);
      const details = (await page.getByLabel('Contract', { exact: true }).textContent())!;
      expect(details).toContain(owner.address.slice(0, 10));
      await page.screenshot({ path: join(SCREENSHOTS, `contract-${name}.png`), fullPage: true });
      expect(await fitsWidth(page)).toBe(true);
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it("an account's transactions with what became of each; a contract's list starts with its creation", async () => {
    const { page, errors } = await openPage(browser, `${node.url}/ui/#/account/${token}`, WIDTHS.desktop);
    const created = page.getByTestId('account-transactions').locator('tr', { has: page.getByTitle(creationHash) });
    await created.waitFor();
    expect(await created.locator('td').last().textContent()).toBe('success');
    await page.goto(`${node.url}/ui/#/account/${owner.address}`);
    const failed = page.getByTestId('account-transactions').locator('tr', { has: page.getByTitle(failedHash) });
    await failed.waitFor();
    expect(await failed.locator('td').last().textContent()).toBe('failed');
    await page.screenshot({ path: join(SCREENSHOTS, 'account-outcomes-desktop.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a transaction's page: its Transfer log decoded, gas used; a failed call's revert reason", async () => {
    for (const [name, size] of Object.entries(WIDTHS)) {
      const { page, errors } = await openPage(browser, `${node.url}/ui/#/tx/${transferHash}`, size);
      await page.getByTestId('decoded-log').waitFor();
      const log = (await page.getByTestId('decoded-log').textContent())!;
      expect(log).toMatch(/^Transfer\(/);
      expect(log).toContain(', 25)');
      expect(await page.getByLabel('Transaction', { exact: true }).textContent()).toMatch(/Gas used\s*\d+/);
      await page.screenshot({ path: join(SCREENSHOTS, `contract-tx-${name}.png`), fullPage: true });
      expect(await fitsWidth(page)).toBe(true);
      await page.goto(`${node.url}/ui/#/tx/${failedHash}`);
      await page.getByTestId('tx-failure').waitFor();
      // The reason once, its error name as the title (not "execution_reverted execution reverted").
      expect(await page.getByTestId('tx-failure').textContent()).toBe('failed: execution reverted: no way');
      expect(await page.getByTestId('tx-failure').getAttribute('title')).toBe('execution_reverted');
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it('events and custom errors of a contract whose ABI the node keeps, decoded by name', async () => {
    for (const [name, size] of Object.entries(WIDTHS)) {
      const { page, errors } = await openPage(browser, `${node.url}/ui/#/tx/${countedHash}`, size);
      await page.getByTestId('abi-decoded-log').first().waitFor();
      const logs = await page.getByTestId('abi-decoded-log').allTextContents();
      expect(logs).toEqual([
        `Counted(by=${toEthAddress(owner.address, true)}, value=1, tag=0x${'00'.repeat(32)}, note=counted)`,
        `Counted(by=${toEthAddress(owner.address, true)}, value=2, tag=0x${'00'.repeat(31)}01, note=counted)`,
      ]);
      await page.screenshot({ path: join(SCREENSHOTS, `contract-abi-events-${name}.png`), fullPage: true });
      await page.goto(`${node.url}/ui/#/tx/${customHash}`);
      await page.getByTestId('decoded-revert').waitFor();
      expect(await page.getByTestId('decoded-revert').textContent()).toBe('Custom(code=7, why=custom)');
      await page.screenshot({ path: join(SCREENSHOTS, `contract-abi-error-${name}.png`), fullPage: true });
      expect(await fitsWidth(page)).toBe(true);
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it("a contract's compute job: its contract, and how the callback went", async () => {
    // The devnet's validator is its compute provider: a contract's job runs with no set-up.
    const client = new SvcClient(node.url);
    const { abi } = artifact('WordCount');
    const deployed = await client.deployContract(owner, { ...artifact('WordCount'), value: 10n * UNIT });
    await client.waitForTransaction(deployed.txHash, { pollMs: 20 });
    const input = toHex(new TextEncoder().encode('count me'));
    const submitted = await client.callContract(owner, {
      address: deployed.address,
      abi,
      functionName: 'count',
      args: ['', toHex(fixture('upper')), input, 1_000_000n, 1_000n, 1],
    });
    await client.waitForTransaction(submitted.hash, { pollMs: 20 });
    const jobId = (await client.readContract({ address: deployed.address, abi, functionName: 'lastJob' })) as string;
    const job = await client.waitForJob(jobId, { timeoutMs: 30_000 });
    expect(job.callback).toMatchObject({ status: 'success' });
    const { page, errors } = await openPage(browser, `${node.url}/ui/#/job/${jobId}`, WIDTHS.desktop);
    await page.getByTestId('job-callback').filter({ hasText: 'succeeded' }).waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('job-callback').textContent()).toMatch(
      /^0x[0-9a-f]{8} with up to 200000 gas: succeeded, \d+ gas, in block \d+$/,
    );
    // The callback is a system transaction: listed in its block, with its receipt's event.
    await page.getByTestId('job-callback-tx').click();
    await page.getByText('evm.callback').waitFor();
    await page.getByTestId('logs').locator('li').first().waitFor();
    await page.goto(`${node.url}/ui/#/block/${job.callback!.calledAt}`);
    await page.getByTestId('block-system-transactions').getByText(job.callback!.hash!).waitFor();
    await page.goto(`${node.url}/ui/#/job/${jobId}`);
    await page.getByText('Requester (a contract)').waitFor();
    await page.getByTitle(accountAddress(deployed.address)).click();
    await page.getByTestId('code-size').waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });
});

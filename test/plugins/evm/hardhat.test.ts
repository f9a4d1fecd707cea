import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startTestNode, type TestNode } from '../../helpers/test-node.js';
import { contracts } from '../../helpers/contracts.js';
import { tempDir } from '../../helpers/temp-dirs.js';
import { TEST_ADDRESS_1, TEST_KEY_0 } from '../../helpers/foundry.js';

/**
 * A Hardhat 2 project as a user has one: a config whose network points at the node with a private key,
 * and a deploy script using hardhat-ethers, run with `hardhat run --network`. The contracts come as
 * artifacts compiled by this run (Hardhat would download a solc binary to compile them itself).
 */
const CONFIG = `
require('@nomicfoundation/hardhat-ethers');
module.exports = {
  solidity: '0.8.31',
  networks: { svc: { url: process.env.SVC_URL, accounts: [process.env.SVC_KEY] } },
};
`;

const DEPLOY_SCRIPT = `
const hre = require('hardhat');
const { abi, bytecode } = require('../artifacts-in/Token.json');

async function main() {
  const [deployer] = await hre.ethers.getSigners();
  const network = await hre.ethers.provider.getNetwork();
  const Token = new hre.ethers.ContractFactory(abi, bytecode, deployer);
  const token = await Token.deploy(10n ** 24n);
  await token.waitForDeployment();
  const deployReceipt = await token.deploymentTransaction().wait();
  const tx = await token.transfer(process.env.RECIPIENT, 1234n);
  const receipt = await tx.wait();
  const balance = await token.balanceOf(process.env.RECIPIENT);
  let revert = null;
  try {
    await token.transfer.staticCall(process.env.RECIPIENT, 10n ** 30n);
  } catch (error) {
    const parsed = token.interface.parseError(error.data);
    revert = { name: parsed.name, needed: parsed.args.needed.toString() };
  }
  console.log(JSON.stringify({
    chainId: network.chainId.toString(),
    deployer: deployer.address,
    address: await token.getAddress(),
    deployStatus: deployReceipt.status,
    transferStatus: receipt.status,
    transferLogs: receipt.logs.length,
    balance: balance.toString(),
    revert,
  }));
}

main().catch((error) => { console.error(error); process.exitCode = 1; });
`;

function hardhat(project: string, args: string[], env: Record<string, string>): Promise<string> {
  const cli = resolve('node_modules/hardhat/internal/cli/cli.js');
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', NO_COLOR: '1' },
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) done(out.trim());
      else fail(new Error(`hardhat ${args.join(' ')} exited ${code}: ${err.trim() || out.trim()}`));
    });
  });
}

describe('Hardhat 2 against a node, unchanged', () => {
  let node: TestNode;
  let project: string;

  beforeAll(async () => {
    node = await startTestNode({ validator: { blockTime: 100 } });
    project = tempDir('svc-hardhat-');
    // The project resolves hardhat and its plugin from this package's dependencies, as an installed project would.
    symlinkSync(resolve('node_modules'), join(project, 'node_modules'), 'dir');
    mkdirSync(join(project, 'scripts'));
    mkdirSync(join(project, 'artifacts-in'));
    writeFileSync(join(project, 'hardhat.config.js'), CONFIG);
    writeFileSync(join(project, 'scripts', 'deploy.js'), DEPLOY_SCRIPT);
    writeFileSync(join(project, 'artifacts-in', 'Token.json'), JSON.stringify(contracts().Token));
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('a deploy script run with --network deploys an ERC-20, transfers, waits for receipts, reads, and decodes a custom error', async () => {
    const out = await hardhat(project, ['run', 'scripts/deploy.js', '--network', 'svc'], {
      SVC_URL: node.url,
      SVC_KEY: TEST_KEY_0,
      RECIPIENT: TEST_ADDRESS_1,
    });
    const result = JSON.parse(out.split('\n').at(-1)!) as Record<string, unknown>;
    expect(result).toMatchObject({
      chainId: String(0x737663),
      deployStatus: 1,
      transferStatus: 1,
      transferLogs: 1,
      balance: '1234',
      revert: { name: 'InsufficientBalance', needed: String(10n ** 30n) },
    });
    const { body } = await rpc<string>(node.url, 'eth_getCode', [result.address, 'latest']);
    expect(body.result!.length).toBeGreaterThan(2);
  }, 180_000);
});

// Once per test run, before any test file: compile the Solidity fixtures (solc-js is slow to load).
import type { TestProject } from 'vitest/node';
import { compileFixtures } from './helpers/contracts.js';

export default async function setup(project: TestProject): Promise<void> {
  project.provide('contracts', await compileFixtures());
}

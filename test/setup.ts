// Runs before every test file: the libp2p polyfill, and removal of the temp dirs the file made.
import '../kernel/polyfill.js';
import { afterAll } from 'vitest';
import { removeTempDirs } from './helpers/temp-dirs.js';

afterAll(() => removeTempDirs());

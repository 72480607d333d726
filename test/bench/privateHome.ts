/**
 * Imported first by the benchmark, before n8n's packages: what they write in the home folder
 * (n8n-core's ~/.n8n, the Snowflake SDK that n8n-nodes-base loads: ~/.cache/snowflake) goes to a
 * private folder of the run, removed at exit, and so does what the processes it starts write
 * there; npm keeps its own cache where it was.
 */
import { mkdtempSync, rmSync } from 'fs';
import os from 'os';
import path from 'path';

const home = mkdtempSync(path.join(os.tmpdir(), 'mcrm-bench-home-'));
process.on('exit', () => rmSync(home, { recursive: true, force: true }));
process.env.npm_config_cache ??= path.join(os.homedir(), '.npm');
process.env.HOME = home;

/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * Imported first by the benchmark, before n8n's packages: what they write in the home folder
 * (n8n-core's ~/.n8n, the Snowflake SDK that n8n-nodes-base loads: ~/.cache/snowflake) goes to a
 * private folder of the run, removed at exit, and so does what the processes it starts write
 * there; npm keeps its own cache where it was.
 */
import { randomBytes } from 'crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import os from 'os';
import path from 'path';

const home = mkdtempSync(path.join(os.tmpdir(), 'mcrm-bench-home-'));
process.on('exit', () => rmSync(home, { recursive: true, force: true }));
// n8n-core's settings, made before any process of the run needs them: without them each one makes
// its own and says so on its standard output, where a worker's answer is read.
mkdirSync(path.join(home, '.n8n'), { mode: 0o700 });
writeFileSync(
	path.join(home, '.n8n', 'config'),
	JSON.stringify({ encryptionKey: randomBytes(24).toString('base64') }),
	{ mode: 0o600 },
);
process.env.npm_config_cache ??= path.join(os.homedir(), '.npm');
process.env.HOME = home;

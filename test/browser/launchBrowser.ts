import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install -y chromium`; .ci/run installs it). Nothing here downloads a browser. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags for a quiet, reproducible headless run: no sandbox (CI runs as root), no network of its own. */
const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where failing tests leave their screenshots (gitignored). */
export const screenshotDir = resolve(import.meta.dirname, '../../test-results/browser');

export type Browser = { context: BrowserContext; close(): Promise<void> };

/**
 * A fresh Chromium with its own throw-away profile (--user-data-dir), so no run sees another's cookies.
 * Viewport 1280 px wide unless given.
 */
export async function launchBrowser(viewport = { width: 1280, height: 900 }): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`Chromium is not installed at ${chromiumPath}: run \`apt-get install -y chromium\` (as root)`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'orbital-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumFlags,
    viewport,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page screenshot named after the step (a failed one, or every one with KEEP_SCREENSHOTS=1) and says where. */
export async function keepScreenshot(page: Page, name: string): Promise<string | undefined> {
  mkdirSync(screenshotDir, { recursive: true });
  const file = join(screenshotDir, `${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.png`);
  try {
    await page.screenshot({ path: file, fullPage: true });
    console.error(`screenshot: ${file}`);
    return file;
  } catch {
    return undefined;
  }
}

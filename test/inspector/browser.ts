/**
 * The browser side of the inspector tests: the page bundled once per test file into a temp
 * folder, Debian's Chromium driven headless by playwright-core (scripts/services.sh installs
 * it and says where, or why not), and screenshots saved under test-output/inspector/.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestContext } from 'node:test';
import { buildInspectorPage } from '../../scripts/build-inspector.js';
import { startInspector, type Inspector } from '../../src/inspector/server.js';

const SHOTS = fileURLToPath(new URL('../../test-output/inspector/', import.meta.url));

/** Chromium's flags: headless as root, and quiet on a closed network. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where Chromium is; throws the reason services.sh gave when there is none (never a skip). */
export function chromiumPath(): string {
  const error = process.env.A2A_TEST_CHROMIUM_ERROR;
  if (error) throw new Error(`Chromium is not available: ${error}`);
  const path = process.env.A2A_TEST_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(path))
    throw new Error(`Chromium is not available: no ${path} (run the tests with npm test, which installs it)`);
  return path;
}

let assets: Promise<string> | undefined;
/** The page bundle, built once per process. */
export function pageAssets(): Promise<string> {
  assets ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'a2a-inspector-assets-'));
    await buildInspectorPage(dir);
    return dir;
  })();
  return assets;
}

/** Removes the bundle folder (call once, in an `after` hook). */
export async function removeAssets(): Promise<void> {
  if (assets) await rm(await assets, { recursive: true, force: true });
  assets = undefined;
}

/** An inspector serving the built page and a browser page on it; both closed by `t.after`. */
export async function openInspector(
  t: TestContext,
  options: {
    agent?: string;
    viewport?: { width: number; height: number };
    colorScheme?: 'light' | 'dark';
  } = {},
): Promise<{ inspector: Inspector; browser: Browser; page: Page }> {
  const inspector = await startInspector({ port: 0, assetsDir: await pageAssets() });
  t.after(() => inspector.close());
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 800 },
    colorScheme: options.colorScheme ?? 'light',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: inspector.url });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  t.after(() => {
    if (errors.length) throw new Error(`the page threw: ${errors.join('; ')}`);
  });
  page.setDefaultTimeout(15_000);
  // What the page showed at the end, kept for a failure's post-mortem.
  t.after(async () => {
    await screenshot(page, `last-${t.name.replace(/[^\w]+/g, '-').slice(0, 60)}`).catch(() => undefined);
    await browser.close();
  });
  await page.goto(inspector.pageUrl(options.agent));
  return { inspector, browser, page };
}

/** Saves a screenshot as test-output/inspector/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SHOTS, { recursive: true });
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

/** Clicks a tab by its label. */
export async function openTab(page: Page, label: string): Promise<void> {
  await page.getByRole('tab', { name: label, exact: true }).click();
}

/** Polls `check` every 50 ms until it is true; fails naming `what` after 15 s. */
export async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

import fs from "node:fs";
import path from "node:path";
import { chromium } from "@playwright/test";

/**
 * `npx tsx scripts/make-icons.ts`: draws the installable app's PNG icons
 * (public/icons/*.png, listed in public/manifest.webmanifest) from their SVG
 * sources in Chromium, at the sizes the manifest names. Run after changing
 * an SVG; the PNGs are committed.
 */
const ICONS = [
  { source: "icon.svg", size: 192, out: "icon-192.png" },
  { source: "icon.svg", size: 512, out: "icon-512.png" },
  { source: "icon.svg", size: 180, out: "apple-touch-icon.png" },
  { source: "icon-maskable.svg", size: 512, out: "icon-maskable-512.png" },
];
const DIR = path.resolve("public/icons");
const SYSTEM_CHROMIUM = "/usr/bin/chromium";

const browser = await chromium.launch({
  executablePath: fs.existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : undefined,
  args: ["--no-sandbox", "--disable-gpu"],
});
try {
  for (const { source, size, out } of ICONS) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    const svg = fs.readFileSync(path.join(DIR, source), "utf8");
    await page.setContent(
      `<html><body style="margin:0;background:transparent">${svg.replace("<svg ", `<svg width="${size}" height="${size}" `)}</body></html>`,
    );
    await page.screenshot({ path: path.join(DIR, out), omitBackground: true });
    await page.close();
    console.log(`public/icons/${out}: ${size}×${size}`);
  }
} finally {
  await browser.close();
}

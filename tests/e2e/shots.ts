import fs from "node:fs";
import type { Page } from "@playwright/test";

/**
 * Screenshots for a person to review, taken only when SHOTS_DIR is set
 * (`SHOTS_DIR=/tmp/shots npm run test:e2e`): the suite's own runs take none.
 */
export const SHOTS_DIR = process.env.SHOTS_DIR;

/** The page as it is now, in the light and the dark theme: `<name>-light.png`, `<name>-dark.png`. */
export async function reviewShots(page: Page, name: string, { fullPage = false } = {}) {
  if (!SHOTS_DIR) return;
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: `${SHOTS_DIR}/${name}-${scheme}.png`, fullPage });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

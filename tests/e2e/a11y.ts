import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** The axe rules whose outcome depends on colours: all a second theme can change. */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

/**
 * Runs axe-core on the page as it is now (WCAG 2.0–2.2, levels A and AA) and
 * fails with the rule ids, the elements and axe's explanation if anything is
 * found. `coloursOnly`: only the rules about colour, for a page already
 * checked whole in another theme.
 */
export async function expectNoAxeViolations(page: Page, state: string, { coloursOnly = false } = {}) {
  const builder = new AxeBuilder({ page });
  const results = await (
    coloursOnly
      ? builder.withRules(COLOUR_RULES)
      : builder.withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"])
  ).analyze();
  const found = results.violations.map((violation) => ({
    rule: violation.id,
    help: violation.help,
    nodes: violation.nodes.map((node) => `${node.target.join(" ")}: ${node.failureSummary ?? ""}`),
  }));
  expect(found, `axe violations (${state})`).toEqual([]);
}

/**
 * WCAG 1.4.11 (non-text contrast), which axe does not check: the border of
 * every visible text field and select, and every icon (an <svg> in a button or
 * link), against the colour behind it, at least 3:1. Returns nothing; fails
 * with the elements and their ratios.
 */
export async function expectNonTextContrast(page: Page, state: string) {
  const failures = await page.evaluate(() => {
    type RGBA = [number, number, number, number];
    const parse = (value: string): RGBA => {
      const numbers = value.match(/[\d.]+/g)?.map(Number) ?? [0, 0, 0, 0];
      return [numbers[0], numbers[1], numbers[2], numbers.length > 3 ? numbers[3] : 1];
    };
    const over = (top: RGBA, under: RGBA): RGBA => {
      const a = top[3];
      return [top[0] * a + under[0] * (1 - a), top[1] * a + under[1] * (1 - a), top[2] * a + under[2] * (1 - a), 1];
    };
    /** The opaque colour behind an element: its ancestors' backgrounds composited up to the canvas. */
    const behind = (element: Element | null): RGBA => {
      const layers: RGBA[] = [];
      for (let node = element; node; node = node.parentElement) {
        const colour = parse(getComputedStyle(node).backgroundColor);
        if (colour[3] > 0) layers.push(colour);
        if (colour[3] >= 1) break;
      }
      const dark = matchMedia("(prefers-color-scheme: dark)").matches;
      let result: RGBA = layers.at(-1)?.[3] === 1 ? layers.pop()! : dark ? [0, 0, 0, 1] : [255, 255, 255, 1];
      while (layers.length) result = over(layers.pop()!, result);
      return result;
    };
    const luminance = ([r, g, b]: RGBA) => {
      const channel = (c: number) => {
        const s = c / 255;
        return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const ratio = (a: RGBA, b: RGBA) => {
      const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
      return (hi + 0.05) / (lo + 0.05);
    };
    const visible = (element: Element) => {
      const box = element.getBoundingClientRect();
      const style = getComputedStyle(element);
      return box.width > 0 && box.height > 0 && style.visibility !== "hidden" && style.opacity !== "0";
    };
    const describe = (element: Element) =>
      `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ""}${element.getAttribute("name") ? `[name=${element.getAttribute("name")}]` : ""}${element.getAttribute("aria-label") ? `[aria-label="${element.getAttribute("aria-label")}"]` : ""}`;
    const found: string[] = [];
    const fields = document.querySelectorAll(
      "input:not([type=hidden]):not([type=checkbox]):not([type=radio]):not([type=range]):not([type=color]), textarea, select",
    );
    for (const field of fields) {
      if (!visible(field) || (field as HTMLInputElement).disabled) continue;
      const style = getComputedStyle(field);
      const back = behind(field.parentElement);
      const own = over(parse(style.backgroundColor), back);
      // The field is told apart by its border, or (borderless) by its own fill.
      const edges = parseFloat(style.borderBottomWidth) > 0 ? [over(parse(style.borderBottomColor), back)] : [own];
      for (const edge of edges) {
        const r = ratio(edge, back);
        if (r < 3) found.push(`${describe(field)}: boundary ${r.toFixed(2)}:1`);
      }
    }
    for (const icon of document.querySelectorAll("button svg, a svg, [role=button] svg")) {
      if (!visible(icon) || icon.closest("[aria-hidden=true]:not(svg)")) continue;
      // The colour an icon is drawn in is its shapes' (stroke for line icons, else fill), not the <svg>'s own.
      const shape = icon.querySelector("path, line, polyline, polygon, rect, circle, ellipse") ?? icon;
      const style = getComputedStyle(shape);
      const paint = style.stroke !== "none" && parseFloat(style.strokeWidth) > 0 ? style.stroke : style.fill;
      if (!paint.startsWith("rgb")) continue;
      const back = behind(icon.closest("button, a, [role=button]"));
      const r = ratio(over(parse(paint), back), back);
      if (r < 3) found.push(`${describe(icon.closest("button, a, [role=button]")!)} icon: ${r.toFixed(2)}:1`);
    }
    return found;
  });
  expect(failures, `non-text contrast below 3:1 (${state})`).toEqual([]);
}

/**
 * A visible focus indicator on each of the first `stops` Tab stops: an outline
 * or a box shadow while focused by keyboard (WCAG 2.4.7).
 */
export async function expectVisibleFocus(page: Page, state: string, stops = 20) {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const missing: string[] = [];
  for (let i = 0; i < stops; i += 1) {
    await page.keyboard.press("Tab");
    const result = await page.evaluate(() => {
      const element = document.activeElement;
      if (!element || element === document.body) return null;
      const style = getComputedStyle(element);
      const outlined = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
      const shadowed = style.boxShadow !== "none";
      const name = element.getAttribute("aria-label") || element.textContent?.trim().slice(0, 40) || element.tagName;
      return { shown: outlined || shadowed, name: `${element.tagName.toLowerCase()} "${name}"` };
    });
    if (!result) break;
    if (!result.shown) missing.push(result.name);
  }
  expect(missing, `Tab stops without a visible focus indicator (${state})`).toEqual([]);
}

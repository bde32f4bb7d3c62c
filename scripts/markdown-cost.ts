import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { Markdown } from "~/components/chat/markdown";
import { markdownVerdict } from "~/components/chat/markdown-budget";

/**
 * Server render time of one reply, for payloads that are costly to parse
 * (quadratic or deeply nested for the parser) and ones just under the limits of
 * app/components/chat/markdown-budget.ts (ADR 050): the worst a reply can
 * cost per page view. Best of three runs each.
 *
 *   NODE_ENV=production npx tsx --tsconfig tsconfig.json scripts/markdown-cost.ts
 */
const table = (cols: number, rows: number) =>
  `${"|a".repeat(cols)}|\n${"|-".repeat(cols)}|\n${`${"|a".repeat(cols)}|\n`.repeat(rows)}`;

const PAYLOADS: Record<string, string> = {
  "hostile: 30 000 [ a 30 000 ] (60 KB)": `${"[".repeat(30_000)}a${"]".repeat(30_000)}`,
  "hostile: 1 200 nested > (1.2 KB)": `${">".repeat(1_200)} x`,
  "ordinary reply (3 KB)":
    "## Title\n\nSome **bold** text, a [link](https://example.org) and `code`.\n\n- one\n- two\n\n```js\nconst a = 1;\n```\n\n".repeat(
      25,
    ),
  "under the limits: 999 _a* in one paragraph": "_a*".repeat(333),
  "under the limits: 39 paragraphs of 66 markers": `${"_a*".repeat(33)}a\n\n`.repeat(39),
  "under the limits: 999 ] then 2 900 lines": `${"]".repeat(999)}\n\n${"a\n".repeat(2_900)}`,
  "under the limits: 16 nested lists": Array.from({ length: 16 }, (_, i) => `${"  ".repeat(i)}- a`).join("\n"),
  "under the limits: 35 KB of entities": "&amp;".repeat(7_000),
  "over: table 50 × 200": table(50, 200),
  "over: 9 000 headings": "# a\n".repeat(9_000),
};

renderToString(createElement(Markdown, null, "warm **up** `x`\n\n```js\nlet a\n```"));
for (const [name, text] of Object.entries(PAYLOADS)) {
  let best = Infinity;
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    renderToString(createElement(Markdown, null, text));
    best = Math.min(best, performance.now() - started);
  }
  const verdict = markdownVerdict(text);
  console.log(
    `${name.padEnd(48)} ${String(text.length).padStart(6)} chars ${best.toFixed(1).padStart(8)} ms  ${verdict.ok ? "Markdown" : `plain text (${verdict.reason})`}`,
  );
}

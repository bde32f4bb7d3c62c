/**
 * A long reply written the way models write them: headings, paragraphs with
 * bold and inline code, bulleted and numbered lists, a table, fenced code
 * with a language, inline and display math. The streaming benchmark
 * (scripts/perf/stream-markdown.ts) and the browser tests stream it to see
 * that rendering keeps up without blocking the page.
 */

export const REPLY_FIRST_WORD = "Quokka";
export const REPLY_LAST_WORD = "Finis";

const PROSE =
  "The quick measurement of a system depends on what is counted, how often it is sampled and **which parts** of the " +
  "work are left out; a careful reader checks the `inputs` before trusting the figures that come out.";

function section(index: number): string {
  const n = index + 1;
  return [
    `## Part ${n}: what to measure`,
    `${PROSE} Section ${n} adds the energy relation \\(E = mc^2\\) and the ratio $a_${n}/b_${n}$ for good measure.`,
    [
      `- First, count the **requests** of part ${n}`,
      "- Then the `errors`, grouped by cause",
      "- Last, the time each took",
    ].join("\n"),
    [`1. Open the report for step ${n}`, "2. Compare it with the last run", "3. Write down what changed and why"].join(
      "\n",
    ),
    [
      "| Metric | Before | After | Change |",
      "|---|---|---|---|",
      `| Requests per second (part ${n}) | 1200 | 1850 | +54% |`,
      "| Median latency | 42 ms | 28 ms | −33% |",
      "| Errors per thousand | 3.1 | 0.4 | −87% |",
    ].join("\n"),
    [
      "```ts",
      `export function summarize${n}(samples: number[]): { mean: number; max: number } {`,
      "  const total = samples.reduce((sum, value) => sum + value, 0);",
      "  return { mean: total / Math.max(1, samples.length), max: Math.max(...samples) };",
      "}",
      "```",
    ].join("\n"),
    "$$\n\\sigma = \\sqrt{\\frac{1}{N} \\sum_{i=1}^{N} (x_i - \\mu)^2}\n$$",
    `${PROSE} ${PROSE}`,
  ].join("\n\n");
}

/** About `words` words (a word is what the scripted model streams as one token). */
export function markdownReply(words = 1000): string {
  const parts = [`# ${REPLY_FIRST_WORD}: a long answer`];
  let count = 4;
  for (let i = 0; count < words - 30; i++) {
    const next = section(i);
    parts.push(next);
    count += next.split(/\s+/).filter(Boolean).length;
  }
  parts.push(`That is all for now. ${REPLY_LAST_WORD}`);
  return parts.join("\n\n");
}

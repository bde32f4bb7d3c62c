import { useId } from "react";
import { formatMicroUsd } from "~/budgets/budget-text";
import { formatDay, formatNumber, plural } from "./format";

export interface DayUsage {
  /** YYYY-MM-DD, UTC. */
  day: string;
  messages: number;
  inputTokens: number;
  outputTokens: number;
  /** Spend at the model prices, in micro-dollars (docs/decisions/072). */
  costMicroUsd: number;
}

/** How a chart says its values: "12 messages", "$0.42". */
interface Measure {
  say: (value: number) => string;
  tick: (value: number) => string;
}

const count = (unit: string): Measure => ({ say: (value) => plural(value, unit), tick: compact });
const MONEY: Measure = {
  say: (micro) => formatMicroUsd(micro),
  tick: (micro) => formatMicroUsd(micro).replace(/\.00$/, ""),
};

// The plot's own coordinates; it stretches to the figure's width. Its labels
// are HTML beside it, so they keep their size on a phone (an SVG's text
// shrinks with the drawing: 13 units were ~6 px at 390 px wide).
const WIDTH = 600;
const HEIGHT = 120;
const TOP = 6;

/** The smallest 1, 2 or 5 × 10^n at or above `value` (at least 1), for a readable axis. */
export function niceCeiling(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** Short axis labels: 1,200 → "1.2k", 3,400,000 → "3.4M". */
function compact(value: number): string {
  if (value >= 1_000_000) return `${+(value / 1_000_000).toFixed(1)}M`;
  if (value >= 1_000) return `${+(value / 1_000).toFixed(1)}k`;
  return String(value);
}

/**
 * One bar chart of a series over the days. The SVG is an image with a text
 * description for screen readers; the exact figures are in the table under
 * both charts. Colours come from the page's variables (light and dark).
 */
function BarChart({
  days,
  values,
  title,
  measure,
  limit,
}: {
  days: DayUsage[];
  values: number[];
  title: string;
  measure: Measure;
  /** A daily budget, drawn as a line the bars are measured against. */
  limit?: { value: number; label: string } | null;
}) {
  const id = useId();
  const max = Math.max(0, ...values);
  const top = niceCeiling(Math.max(max, limit?.value ?? 0));
  const plotHeight = HEIGHT - TOP;
  const slot = WIDTH / Math.max(1, days.length);
  const barWidth = Math.max(2, slot * 0.65);
  const y = (value: number) => TOP + plotHeight - (value / top) * plotHeight;
  const percent = (value: number, of: number) => `${((value / of) * 100).toFixed(2)}%`;
  const total = values.reduce((sum, value) => sum + value, 0);
  const busiest = max > 0 ? days[values.indexOf(max)] : undefined;
  const labelled = days.length > 0 ? [0, Math.floor((days.length - 1) / 2), days.length - 1] : [];
  const description =
    days.length === 0
      ? "No data."
      : `${measure.say(total)} from ${formatDay(days[0].day)} to ${formatDay(days[days.length - 1].day)}` +
        (busiest ? `; the busiest day was ${formatDay(busiest.day)} with ${measure.say(max)}.` : "; none on any day.") +
        (limit ? ` The ${limit.label} is ${measure.say(limit.value)}.` : "");

  return (
    <figure className="usage-chart">
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <div className="chart-area">
        {/* The labels repeat what the description says: hidden from screen readers. */}
        <div className="chart-ticks" aria-hidden="true">
          {[0, top / 2, top].map((tick) => (
            <span key={tick} style={{ top: percent(y(tick), HEIGHT) }}>
              {measure.tick(tick)}
            </span>
          ))}
        </div>
        <svg
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          preserveAspectRatio="none"
          role="img"
          aria-labelledby={`${id}-title ${id}-desc`}
        >
          <desc id={`${id}-desc`}>{description}</desc>
          {[0, top / 2, top].map((tick) => (
            <line
              key={tick}
              className="chart-grid"
              x1={0}
              x2={WIDTH}
              y1={y(tick)}
              y2={y(tick)}
              vectorEffect="non-scaling-stroke"
            />
          ))}
          {days.map((day, index) =>
            values[index] > 0 ? (
              <rect
                key={day.day}
                className="chart-bar"
                x={index * slot + (slot - barWidth) / 2}
                y={y(values[index])}
                width={barWidth}
                height={Math.max(1, y(0) - y(values[index]))}
              >
                <title>{`${formatDay(day.day)}: ${measure.say(values[index])}`}</title>
              </rect>
            ) : null,
          )}
          {limit ? (
            <line
              className="chart-limit"
              x1={0}
              x2={WIDTH}
              y1={y(limit.value)}
              y2={y(limit.value)}
              vectorEffect="non-scaling-stroke"
            />
          ) : null}
        </svg>
        <div className="chart-days" aria-hidden="true">
          {labelled.map((index, position) => {
            // The first and last labels align with the plot's edges, so they are never cut off.
            const edge = position === 0 ? "start" : position === labelled.length - 1 ? "end" : "middle";
            return (
              <span
                key={index}
                className={`chart-day ${edge}`}
                style={edge === "middle" ? { left: percent(index * slot + slot / 2, WIDTH) } : undefined}
              >
                {formatDay(days[index].day)}
              </span>
            );
          })}
        </div>
      </div>
    </figure>
  );
}

/** Messages, tokens and (when priced) spend per day (bars), against the daily budgets, with every figure in a table behind them. */
export function UsageChart({
  days,
  budgets = {},
}: {
  days: DayUsage[];
  /** Daily budgets to draw; `spend` also shows the spend chart when nothing was spent yet. */
  budgets?: { dailyTokens?: number | null; dailyMicroUsd?: number | null; spend?: boolean };
}) {
  const spend = budgets.spend === true || days.some((day) => day.costMicroUsd > 0);
  return (
    <div className="usage-charts">
      <BarChart
        days={days}
        values={days.map((day) => day.messages)}
        title="Messages per day, last 30 days"
        measure={count("message")}
      />
      <BarChart
        days={days}
        values={days.map((day) => day.inputTokens + day.outputTokens)}
        title="Tokens per day, last 30 days"
        measure={count("token")}
        limit={budgets.dailyTokens ? { value: budgets.dailyTokens, label: "daily token budget" } : null}
      />
      {spend ? (
        <BarChart
          days={days}
          values={days.map((day) => day.costMicroUsd)}
          title="Spend per day, last 30 days"
          measure={MONEY}
          limit={budgets.dailyMicroUsd ? { value: budgets.dailyMicroUsd, label: "daily budget" } : null}
        />
      ) : null}
      <details className="usage-table">
        <summary>Show the numbers</summary>
        <table>
          <caption>{spend ? "Messages, tokens and spend" : "Messages and tokens"} per day, last 30 days (UTC)</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Messages</th>
              <th scope="col">Input tokens</th>
              <th scope="col">Output tokens</th>
              {spend ? <th scope="col">Spend</th> : null}
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.day}>
                <th scope="row">
                  <time dateTime={day.day}>{formatDay(day.day)}</time>
                </th>
                <td>{formatNumber(day.messages)}</td>
                <td>{formatNumber(day.inputTokens)}</td>
                <td>{formatNumber(day.outputTokens)}</td>
                {spend ? <td>{formatMicroUsd(day.costMicroUsd)}</td> : null}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}

import { json, type HeadersFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import type { ReactNode } from "react";
import { requireAdmin } from "~/auth/session.server";
import { formatMicroUsd } from "~/budgets/budget-text";
import { planName } from "~/components/dashboard/plan";
import { LocalTime } from "~/components/time/local-time";
import { getConfig } from "~/config.server";
import { emailsOf, usageReport } from "~/data/admin-usage.server";
import { withDatabase } from "~/http/with-database.server";
import { pageTitle } from "~/meta";

export const meta: MetaFunction = () => pageTitle("Admin usage");

const NO_STORE = { "Cache-Control": "no-store" };

export const headers: HeadersFunction = () => NO_STORE;

/** /admin/usage (docs/decisions/073): who uses what and what it costs, against what the plans bring in (CSV: /admin/usage.csv). */
export async function loader({ request }: LoaderFunctionArgs) {
  // Every loader under /admin checks the role freshly, never from the auth caches (ADR 002).
  await requireAdmin(request);
  const report = await withDatabase("reading usage", (db) => usageReport(db));
  const emails = await emailsOf([...new Set([...report.top, ...report.keys].map((row) => row.uid))]);
  const plans = new Map(getConfig().plans.map((plan) => [plan.role, plan.name]));
  return json(
    {
      ...report,
      top: report.top.map((user) => ({ ...user, email: emails.get(user.uid) ?? null })),
      keys: report.keys.map((key) => ({ ...key, email: emails.get(key.uid) ?? null })),
      planNames: Object.fromEntries(report.plans.map((row) => [row.role, plans.get(row.role) ?? planName(row.role)])),
    },
    { headers: NO_STORE },
  );
}

const number = (value: number) => value.toLocaleString("en-US");
const money = (cents: number, currency: string) =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(cents / 100);

export default function AdminUsagePage() {
  const { from, to, days, models, plans, top, refusals, planNames, keys, keysUsed } = useLoaderData<typeof loader>();
  const totals = days.reduce(
    (sum, day) => ({
      messages: sum.messages + day.messages,
      tokens: sum.tokens + day.tokens,
      cost: sum.cost + day.costMicroUsd,
      refusals: sum.refusals + day.refusals,
    }),
    { messages: 0, tokens: 0, cost: 0, refusals: 0 },
  );
  return (
    <section aria-labelledby="usage-title" className="admin-usage">
      <h1 id="usage-title">Usage</h1>
      <p className="muted">
        The last {days.length} days ({from} to {to}, UTC): {number(totals.messages)} messages, {number(totals.tokens)}{" "}
        tokens, {formatMicroUsd(totals.cost)} of model use, {number(totals.refusals)} sends refused at a limit. Costs
        are at LLM_MODEL_PRICES.
      </p>
      <p>
        <a className="button" href="/admin/usage.csv" download>
          Download CSV
        </a>
      </p>

      <UsageTable
        title="Per plan"
        label="Usage per plan"
        columns={["Plan", "Users", "Messages", "Tokens", "Model spend", "Revenue"]}
        empty="No use yet."
        rows={plans.map((row) => ({
          key: row.role,
          name: (
            <>
              {planNames[row.role]} <span className="muted">({row.role})</span>
            </>
          ),
          cells: [
            number(row.users),
            number(row.messages),
            number(row.tokens),
            formatMicroUsd(row.costMicroUsd),
            row.revenue.length === 0
              ? "—"
              : row.revenue.map((entry) => money(entry.amount, entry.currency)).join(" + "),
          ],
        }))}
      />

      <UsageTable
        title="Per model"
        label="Usage per model"
        columns={["Model", "Replies", "Input tokens", "Output tokens", "Cost"]}
        empty="No replies yet."
        rows={models.map((row) => ({
          key: row.model,
          name: row.model,
          cells: [
            number(row.replies),
            number(row.inputTokens),
            number(row.outputTokens),
            formatMicroUsd(row.costMicroUsd),
          ],
        }))}
      />

      <UsageTable
        title="Top users"
        label="Top users"
        columns={["User", "Messages", "Tokens", "Cost"]}
        empty="No use yet."
        rows={top.map((row) => ({
          key: row.uid,
          name: row.email ?? row.uid,
          cells: [number(row.messages), number(row.tokens), formatMicroUsd(row.costMicroUsd)],
        }))}
      />

      <UsageTable
        title="API keys"
        label="Usage per API key"
        note={
          keysUsed > keys.length
            ? `The ${keys.length} busiest of ${number(keysUsed)} keys used, since each was made (the CSV has the same).`
            : "Every key used, since it was made."
        }
        columns={["Key", "Owner", "Requests", "Tokens", "Cost", "Last used"]}
        empty="No API key has been used yet."
        rows={keys.map((row) => ({
          key: row.id,
          name: (
            <>
              {row.name} <code className="muted">{row.prefix}…</code>
            </>
          ),
          cells: [
            row.email ?? row.uid,
            number(row.requests),
            number(row.tokens),
            formatMicroUsd(row.costMicroUsd),
            <LocalTime key="last" value={row.lastUsedAt} />,
          ],
        }))}
      />

      <h2>Refused at a limit</h2>
      {refusals.length === 0 ? (
        <p>No send was refused at the daily quota or a budget.</p>
      ) : (
        <ul>
          {refusals.map((row) => (
            <li key={row.limit}>
              {row.limit === "budget" ? "A spent budget" : "The daily message quota"}: {number(row.count)} sends by{" "}
              {number(row.users)} {row.users === 1 ? "user" : "users"}
            </li>
          ))}
        </ul>
      )}

      <UsageTable
        title="Per day"
        label="Usage per day"
        columns={["Day", "Active users", "Messages", "Tokens", "Cost", "Refused"]}
        rows={[...days].reverse().map((day) => ({
          key: day.day,
          name: <time dateTime={day.day}>{day.day}</time>,
          cells: [
            number(day.users),
            number(day.messages),
            number(day.tokens),
            formatMicroUsd(day.costMicroUsd),
            number(day.refusals),
          ],
        }))}
      />
    </section>
  );
}

interface UsageRow {
  key: string;
  /** The row's header cell: what the figures are about. */
  name: ReactNode;
  cells: ReactNode[];
}

/** One table of the report: its heading, a scrollable region (a phone), a row per entry; `empty` says so when there is none. */
function UsageTable({
  title,
  label,
  note,
  columns,
  rows,
  empty,
}: {
  title: string;
  label: string;
  note?: string;
  columns: string[];
  rows: UsageRow[];
  empty?: string;
}) {
  return (
    <>
      <h2>{title}</h2>
      {note ? <p className="muted">{note}</p> : null}
      <div className="table-scroll" tabIndex={0} role="region" aria-label={label}>
        <table className="admin-table">
          <thead>
            <tr>
              {columns.map((column) => (
                <th key={column} scope="col">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 && empty ? (
              <tr>
                <td colSpan={columns.length}>{empty}</td>
              </tr>
            ) : (
              rows.map((row) => (
                <tr key={row.key}>
                  <th scope="row">{row.name}</th>
                  {row.cells.map((cell, index) => (
                    <td key={index}>{cell}</td>
                  ))}
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
    </>
  );
}

import { json, type HeadersFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { requireAdmin } from "~/auth/session.server";
import { formatMicroUsd } from "~/chat/budget-text";
import { planName } from "~/components/dashboard/plan";
import { getConfig } from "~/config.server";
import { emailsOf, usageReport } from "~/data/admin-usage.server";
import { withDatabase } from "~/data/inbox.server";
import { pageTitle } from "~/meta";

export const meta: MetaFunction = () => pageTitle("Admin usage");

const NO_STORE = { "Cache-Control": "no-store" };

export const headers: HeadersFunction = () => NO_STORE;

/** /admin/usage (docs/decisions/073): who uses what and what it costs, against what the plans bring in (CSV: /admin/usage.csv). */
export async function loader({ request }: LoaderFunctionArgs) {
  // Every loader under /admin checks the role freshly (DESIGN.md §1).
  await requireAdmin(request);
  const report = await withDatabase("reading usage", (db) => usageReport(db));
  const emails = await emailsOf(report.top.map((user) => user.uid));
  const plans = new Map(getConfig().plans.map((plan) => [plan.role, plan.name]));
  return json(
    {
      ...report,
      top: report.top.map((user) => ({ ...user, email: emails.get(user.uid) ?? null })),
      planNames: Object.fromEntries(report.plans.map((row) => [row.role, plans.get(row.role) ?? planName(row.role)])),
    },
    { headers: NO_STORE },
  );
}

const number = (value: number) => value.toLocaleString("en-US");
const money = (cents: number, currency: string) =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(cents / 100);

export default function AdminUsagePage() {
  const { from, to, days, models, plans, top, refusals, planNames } = useLoaderData<typeof loader>();
  const totals = days.reduce(
    (sum, day) => ({ messages: sum.messages + day.messages, tokens: sum.tokens + day.tokens, cost: sum.cost + day.costMicroUsd, refusals: sum.refusals + day.refusals }),
    { messages: 0, tokens: 0, cost: 0, refusals: 0 },
  );
  return (
    <section aria-labelledby="usage-title" className="admin-usage">
      <h1 id="usage-title">Usage</h1>
      <p className="muted">
        The last {days.length} days ({from} to {to}, UTC): {number(totals.messages)} messages, {number(totals.tokens)} tokens,{" "}
        {formatMicroUsd(totals.cost)} of model use, {number(totals.refusals)} sends refused at a limit. Costs are at LLM_MODEL_PRICES.
      </p>
      <p>
        <a className="button" href="/admin/usage.csv" download>
          Download CSV
        </a>
      </p>

      <h2>Per plan</h2>
      <div className="table-scroll" tabIndex={0} role="region" aria-label="Usage per plan">
        <table className="admin-table">
          <thead>
            <tr>
              <th scope="col">Plan</th>
              <th scope="col">Users</th>
              <th scope="col">Messages</th>
              <th scope="col">Tokens</th>
              <th scope="col">Model spend</th>
              <th scope="col">Revenue</th>
            </tr>
          </thead>
          <tbody>
            {plans.length === 0 ? (
              <tr>
                <td colSpan={6}>No use yet.</td>
              </tr>
            ) : (
              plans.map((row) => (
                <tr key={row.role}>
                  <th scope="row">
                    {planNames[row.role]} <span className="muted">({row.role})</span>
                  </th>
                  <td>{number(row.users)}</td>
                  <td>{number(row.messages)}</td>
                  <td>{number(row.tokens)}</td>
                  <td>{formatMicroUsd(row.costMicroUsd)}</td>
                  <td>{row.revenue.length === 0 ? "—" : row.revenue.map((entry) => money(entry.amount, entry.currency)).join(" + ")}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>

      <h2>Per model</h2>
      <div className="table-scroll" tabIndex={0} role="region" aria-label="Usage per model">
        <table className="admin-table">
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Replies</th>
              <th scope="col">Input tokens</th>
              <th scope="col">Output tokens</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {models.length === 0 ? (
              <tr>
                <td colSpan={5}>No replies yet.</td>
              </tr>
            ) : (
              models.map((row) => (
                <tr key={row.model}>
                  <th scope="row">{row.model}</th>
                  <td>{number(row.replies)}</td>
                  <td>{number(row.inputTokens)}</td>
                  <td>{number(row.outputTokens)}</td>
                  <td>{formatMicroUsd(row.costMicroUsd)}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>

      <h2>Top users</h2>
      <div className="table-scroll" tabIndex={0} role="region" aria-label="Top users">
        <table className="admin-table">
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">Messages</th>
              <th scope="col">Tokens</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {top.length === 0 ? (
              <tr>
                <td colSpan={4}>No use yet.</td>
              </tr>
            ) : (
              top.map((row) => (
                <tr key={row.uid}>
                  <th scope="row">{row.email ?? row.uid}</th>
                  <td>{number(row.messages)}</td>
                  <td>{number(row.tokens)}</td>
                  <td>{formatMicroUsd(row.costMicroUsd)}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>

      <h2>Refused at a limit</h2>
      {refusals.length === 0 ? (
        <p>No send was refused at the daily quota or a budget.</p>
      ) : (
        <ul>
          {refusals.map((row) => (
            <li key={row.limit}>
              {row.limit === "budget" ? "A spent budget" : "The daily message quota"}: {number(row.count)} sends by {number(row.users)}{" "}
              {row.users === 1 ? "user" : "users"}
            </li>
          ))}
        </ul>
      )}

      <h2>Per day</h2>
      <div className="table-scroll" tabIndex={0} role="region" aria-label="Usage per day">
        <table className="admin-table">
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Active users</th>
              <th scope="col">Messages</th>
              <th scope="col">Tokens</th>
              <th scope="col">Cost</th>
              <th scope="col">Refused</th>
            </tr>
          </thead>
          <tbody>
            {[...days].reverse().map((day) => (
              <tr key={day.day}>
                <th scope="row">
                  <time dateTime={day.day}>{day.day}</time>
                </th>
                <td>{number(day.users)}</td>
                <td>{number(day.messages)}</td>
                <td>{number(day.tokens)}</td>
                <td>{formatMicroUsd(day.costMicroUsd)}</td>
                <td>{number(day.refusals)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

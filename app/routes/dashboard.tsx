import {
  json,
  type ActionFunctionArgs,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { requireUser } from "~/auth/session.server";
import { ContactForm } from "~/components/contact-form";
import { AccountFacts } from "~/components/dashboard/account-facts";
import { ApiKeys } from "~/components/dashboard/api-keys";
import { ChangePassword } from "~/components/dashboard/change-password";
import { DataControls } from "~/components/dashboard/data-controls";
import { ImportChats } from "~/components/dashboard/import-chats";
import { DeleteAccount } from "~/components/dashboard/delete-account";
import { DisplayNameForm } from "~/components/dashboard/display-name-form";
import { planName } from "~/components/dashboard/plan";
import { NotificationSettings } from "~/components/dashboard/notification-settings";
import { ProfileHeader } from "~/components/dashboard/profile-header";
import { RecentConversations } from "~/components/dashboard/recent-conversations";
import { SharedLinks } from "~/components/dashboard/shared-links";
import { SettingsMenu } from "~/components/account/settings-menu";
import { ThemeSwitch } from "~/components/dashboard/theme-switch";
import { UsageChart } from "~/components/dashboard/usage-chart";
import { BudgetSummary, FileStorage, QuotaSummary, UsageTotals } from "~/components/dashboard/usage-summary";
import { budgetLimitsFor, fallbackModelFor, getBudgetStatus, type BudgetStatus } from "~/data/budgets.server";
import { upgradeUrl } from "~/billing/plans.server";
import { storageUsed } from "~/data/attachments.server";
import { attachmentLimitsFor } from "~/attachments/limits.server";
import { sharesForDashboard } from "~/chat/share-pages.server";
import { notifySettingsFor } from "~/chat/notify/notify-settings.server";
import { getConfig } from "~/config.server";
import { getAccountDetails, parseDisplayName, setDisplayName } from "~/data/account.server";
import { apiKeysForDashboard, createApiKeyIntent, revokeApiKeyIntent } from "~/data/api-key-intents.server";
import { listConversations } from "~/data/conversations.server";
import { useRootData } from "~/root";
import { getQuotaStatus } from "~/data/quotas.server";
import { themeIntent } from "~/data/theme.server";
import { getUsageByDay } from "~/data/usage.server";
import { getDb } from "~/db/client.server";
import { ensureImportWorker, latestImport } from "~/data/import/import-jobs.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { BODY_LIMITS, readForm } from "~/http/body-limit.server";
import { pageTitle } from "~/meta";
import { roleKey } from "~/settings/role-settings";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "~/text/storable-text";
import dashboardStylesheet from "~/styles/dashboard.css";

export const meta: MetaFunction = () => pageTitle("Dashboard");

export const links: LinksFunction = () => [{ rel: "stylesheet", href: dashboardStylesheet }];

const NO_STORE = { "Cache-Control": "no-store" };
const CHART_DAYS = 30;

/** A section whose store fails shows that it could not load; the rest of the page still works. */
async function settled<T>(work: Promise<T>, context: string): Promise<T | null> {
  try {
    return await work;
  } catch (error) {
    logBackendFault("dashboard", context, error);
    return null;
  }
}

/**
 * The usage figures and recent conversations, read at once (local mode's
 * pool has one connection and queues them: scripts/local/stack.ts), all
 * within one deadline; a section whose read fails is left out alone.
 */
async function usageFigures(uid: string, quotaRole: { role: string; isAdmin: boolean } | null, now: Date) {
  const figures = async () => {
    const db = await getDb();
    // The quota, storage and budgets depend on the role: an unknown role, none shown.
    const forRole = <T,>(read: (role: { role: string; isAdmin: boolean }) => Promise<T>, context: string) =>
      quotaRole ? settled(read(quotaRole), context) : Promise.resolve(null);
    const [usage, quota, recent, storage, budget] = await Promise.all([
      settled(getUsageByDay(db, uid, CHART_DAYS, now), "reading usage"),
      forRole((role) => getQuotaStatus(db, uid, role, now), "reading the quota"),
      settled(listConversations(db, uid, { limit: 5 }), "listing conversations"),
      forRole(() => storageUsed(db, uid), "reading file storage"),
      forRole((role) => getBudgetStatus(db, uid, role, now), "reading the budgets"),
    ]);
    return {
      usage,
      quota,
      recent,
      files: storage === null || !quotaRole ? null : { usedBytes: storage, ...attachmentLimitsFor(quotaRole) },
      budget: budget && quotaRole ? budgetFigures(budget, quotaRole) : null,
    };
  };
  const read = await settled(
    withDeadline("postgres", getConfig().backendTimeoutMs, figures()),
    "reading usage figures",
  );
  return read ?? { usage: null, quota: null, recent: null, files: null, budget: null };
}

/** The budgets for the page: each line, the daily ones for the charts, the fallback's name and the way to more. */
function budgetFigures(status: BudgetStatus, who: { role: string; isAdmin: boolean }) {
  const limits = budgetLimitsFor(who);
  const fallback = fallbackModelFor(who);
  return {
    lines: status.lines,
    daily: {
      dailyTokens: limits.dailyTokens,
      dailyMicroUsd: limits.dailyMicroUsd,
      spend: limits.dailyMicroUsd !== null || limits.monthlyMicroUsd !== null,
    },
    fallback: fallback ? (getConfig().llm.modelNames.get(fallback) ?? fallback) : undefined,
    upgradeUrl: upgradeUrl(),
  };
}

/** The latest import (docs/decisions/104); the page starts this instance's worker, which resumes one left unfinished. */
async function importForDashboard(uid: string) {
  const db = await getDb();
  ensureImportWorker(db);
  return withDeadline("postgres", getConfig().backendTimeoutMs, latestImport(db, uid));
}

export async function loader({ request }: LoaderFunctionArgs) {
  const { user, role, isAdmin, degraded } = await requireUser(request);
  const now = new Date();
  const config = getConfig();
  const [details, { usage, quota, recent, files, budget }, shares, apiKeys, notifications, lastImport] =
    await Promise.all([
      settled(getAccountDetails(user.uid), "reading the identity record"),
      usageFigures(user.uid, degraded ? null : { role, isAdmin }, now),
      sharesForDashboard(user.uid),
      apiKeysForDashboard(request, user.uid, degraded ? null : roleKey({ role, isAdmin })),
      settled(
        withDeadline("postgres", config.backendTimeoutMs, (async () => notifySettingsFor(await getDb(), user.uid))()),
        "reading the notification settings",
      ),
      settled(importForDashboard(user.uid), "reading the latest import"),
    ]);
  return json(
    {
      now: now.toISOString(),
      profile: {
        displayName: details?.displayName ?? user.displayName,
        email: details?.email ?? user.email,
        photoURL: details?.photoURL ?? user.photoURL,
      },
      // A degraded session could not read the role: no plan is shown rather than a wrong one.
      plan: degraded ? null : planName(role),
      // Roles are keyed by email: "admin" counts only once the address is verified.
      adminPending: role === "admin" && !isAdmin,
      account: details,
      usage,
      quota,
      files,
      budget,
      recent,
      shares,
      apiKeys,
      notifications,
      lastImport,
      firebase: config.publicFirebase,
      localMode: config.mode === "local",
    },
    { headers: NO_STORE },
  );
}

export async function action({ request }: ActionFunctionArgs) {
  const { user } = await requireUser(request);
  const form = await readForm(request, BODY_LIMITS.small);
  const intent = form.get("intent");
  if (intent === "theme") return themeIntent(user.uid, form);
  if (intent === "create-api-key") return createApiKeyIntent(user.uid, form);
  if (intent === "revoke-api-key") return revokeApiKeyIntent(user.uid, form);
  if (intent !== "display-name") return json({ error: "Unknown action." }, { status: 400, headers: NO_STORE });
  const typed = String(form.get("displayName") ?? "");
  // The same message for unstorable text as every other field (docs/security.md).
  const parsed = isStorableText(typed)
    ? parseDisplayName(typed)
    : ({ success: false, error: UNSTORABLE_TEXT_MESSAGE } as const);
  if (!parsed.success) {
    return json({ value: typed, fieldErrors: { displayName: parsed.error } }, { status: 400, headers: NO_STORE });
  }
  try {
    await setDisplayName(user.uid, user.email, parsed.name);
  } catch (error) {
    logBackendFault("identity", "changing a display name", error);
    return json(
      {
        value: typed,
        fieldErrors: { displayName: "Your name could not be saved right now. Please try again shortly." },
      },
      { status: 503, headers: NO_STORE },
    );
  }
  return json({ ok: true, notice: `Your name is now ${parsed.name}.` }, { headers: NO_STORE });
}

export default function DashboardPage() {
  const {
    now,
    profile,
    plan,
    adminPending,
    account,
    usage,
    quota,
    files,
    budget,
    recent,
    shares,
    apiKeys,
    notifications,
    lastImport,
    firebase,
    localMode,
  } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  // The API keys' answers are theirs alone (app/data/api-key-intents.server.ts); the other forms read the rest.
  const apiKeyResult = actionData && "apiKey" in actionData ? actionData.apiKey : undefined;
  const formResult = actionData && !("apiKey" in actionData) ? actionData : undefined;
  const theme = useRootData()?.theme ?? "system";
  const hasGoogle = Boolean(account?.providers.some((provider) => provider.id === "google.com"));
  return (
    <div className="page dashboard">
      <div className="dashboard-title">
        <h1>Dashboard</h1>
        <SettingsMenu theme={theme} />
      </div>
      <ProfileHeader {...profile} plan={plan} adminPending={adminPending} />

      <section aria-labelledby="usage-title" className="dashboard-section">
        <h2 id="usage-title">Usage</h2>
        {quota && plan ? (
          <QuotaSummary quota={quota} plan={plan} now={now} />
        ) : (
          <p className="form-error">Today's usage cannot be loaded right now. Please try again shortly.</p>
        )}
        {budget ? (
          <BudgetSummary lines={budget.lines} fallback={budget.fallback} upgradeUrl={budget.upgradeUrl} />
        ) : null}
        {files ? <FileStorage {...files} /> : null}
        {usage ? (
          <>
            <UsageTotals days={usage} />
            <UsageChart days={usage} budgets={budget?.daily} />
          </>
        ) : null}
      </section>

      <section aria-labelledby="recent-title" className="dashboard-section">
        <h2 id="recent-title">Recent conversations</h2>
        <RecentConversations conversations={recent} />
      </section>

      <section aria-labelledby="shared-title" className="dashboard-section">
        <h2 id="shared-title">Shared links</h2>
        <SharedLinks links={shares} />
      </section>

      <section id="api-keys" aria-labelledby="api-keys-title" className="dashboard-section">
        <h2 id="api-keys-title">API keys</h2>
        <ApiKeys {...apiKeys} now={now} result={apiKeyResult} />
      </section>

      <section id="notifications" aria-labelledby="notifications-title" className="dashboard-section">
        <h2 id="notifications-title">Notifications</h2>
        <NotificationSettings settings={notifications} />
      </section>

      <section id="account" aria-labelledby="account-title" className="dashboard-section">
        <h2 id="account-title">Account</h2>
        {account ? (
          <>
            <AccountFacts account={account} firebase={firebase} localMode={localMode} />
            <DisplayNameForm current={account.displayName} result={formResult} />
            <ThemeSwitch stored={theme} />
            {account.hasPassword && account.email ? <ChangePassword firebase={firebase} email={account.email} /> : null}
          </>
        ) : (
          <p className="form-error">Your account details cannot be loaded right now. Please try again shortly.</p>
        )}
      </section>

      <section id="memory" aria-labelledby="memory-title" className="dashboard-section">
        <h2 id="memory-title">Memory</h2>
        <p>
          What the assistant remembers about you across chats. <Link to="/dashboard/memory">Manage memory</Link>
        </p>
      </section>

      <section id="import-chats" aria-labelledby="import-title" className="dashboard-section">
        <h2 id="import-title">Import chats</h2>
        <ImportChats initial={lastImport} />
      </section>

      <section id="your-data" aria-labelledby="data-title" className="dashboard-section">
        <h2 id="data-title">Your data</h2>
        <DataControls />
        {account?.email ? (
          <div id="delete-account">
            <h3>Delete account</h3>
            <DeleteAccount
              email={account.email}
              firebase={firebase}
              hasPassword={account.hasPassword}
              hasGoogle={hasGoogle}
            />
          </div>
        ) : null}
      </section>

      <ContactForm signedInEmail={profile.email} />
    </div>
  );
}

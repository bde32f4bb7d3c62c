import {
  json,
  redirect,
  type ActionFunctionArgs,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import type { ReactNode } from "react";
import { canHoldRole } from "~/auth/role-key";
import { getSessionUser, requireUser } from "~/auth/session.server";
import { appOrigin, checkoutUrl, portalUrl } from "~/billing/checkout.server";
import { planOffers, type Offer } from "~/billing/plan-offers.server";
import { stripeConfigured } from "~/billing/stripe.server";
import { planName } from "~/components/dashboard/plan";
import { getConfig } from "~/config.server";
import { customerOf } from "~/data/billing.server";
import { getDb } from "~/db/client.server";
import { logBackendFault } from "~/deadline.server";
import { BODY_LIMITS, readForm } from "~/http/body-limit.server";
import { pageTitle } from "~/meta";
import pricingStylesheet from "~/styles/pricing.css";

export const meta: MetaFunction = () => pageTitle("Plans");

export const links: LinksFunction = () => [{ rel: "stylesheet", href: pricingStylesheet }];

/** Public: anyone may see the plans; subscribing needs a session (docs/decisions/073). */
export async function loader({ request }: LoaderFunctionArgs) {
  const session = await getSessionUser(request);
  const user = session.status === "signed-in" ? session : null;
  const stripe = stripeConfigured();
  const customer =
    user && stripe
      ? await getDb()
          .then((db) => customerOf(db, user.user.uid))
          .catch(() => undefined)
      : undefined;
  const checkout = new URL(request.url).searchParams.get("checkout");
  return json(
    {
      ...(await planOffers()),
      signedIn: Boolean(user),
      role: user && !session.degraded ? (user.isAdmin ? "admin" : user.role) : null,
      stripe,
      canManage: Boolean(customer),
      checkout: checkout === "done" || checkout === "cancelled" ? checkout : null,
    },
    { headers: { "Cache-Control": "no-store" } },
  );
}

export async function action({ request }: ActionFunctionArgs) {
  const { user } = await requireUser(request);
  const form = await readForm(request, BODY_LIMITS.small);
  if (!stripeConfigured())
    return json({ error: "Plans are granted by an admin here: there is nothing to buy." }, { status: 400 });
  const intent = form.get("intent");
  try {
    const db = await getDb();
    if (intent === "subscribe") {
      const plan = getConfig().plans.find((candidate) => candidate.role === form.get("plan"));
      if (!plan)
        return json({ error: "That plan isn't offered any more. Pick one of the plans below." }, { status: 400 });
      if (!user.email)
        return json({ error: "Your account has no email address, which Stripe needs for receipts." }, { status: 400 });
      // The plan's role could never be written for it (docs/decisions/075): nothing is sold that cannot apply.
      if (!canHoldRole(user.email)) {
        return json(
          {
            error:
              "Your account's email address can't hold a plan here (it has a character such as “/” our records can't use). Use an account with another address to buy a plan.",
          },
          { status: 400 },
        );
      }
      return redirect(await checkoutUrl(db, { uid: user.uid, email: user.email }, plan, appOrigin(request)));
    }
    if (intent === "manage") {
      const url = await portalUrl(db, user.uid, appOrigin(request));
      if (!url) return json({ error: "You have no subscription to manage yet." }, { status: 400 });
      return redirect(url);
    }
  } catch (error) {
    logBackendFault("stripe", `opening ${intent === "manage" ? "the customer portal" : "Checkout"}`, error);
    return json(
      { error: "Stripe can't be reached right now. Nothing was charged; please try again shortly." },
      { status: 503 },
    );
  }
  return json({ error: "Unknown action." }, { status: 400 });
}

export default function PricingPage() {
  const { free, plans, signedIn, role, stripe, canManage, checkout } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formAction === "/pricing";
  const current = role === null ? null : role === "none" ? "" : role;
  return (
    <div className="page pricing">
      <h1>Plans</h1>
      {checkout === "done" ? (
        <p className="notice" role="status">
          Thank you! Your plan changes as soon as Stripe confirms the payment, usually within seconds.
        </p>
      ) : checkout === "cancelled" ? (
        <p className="notice" role="status">
          Checkout was cancelled: nothing was charged.
        </p>
      ) : null}
      {result && "error" in result ? (
        <p className="form-error" role="alert">
          {result.error}
        </p>
      ) : null}
      {current !== null ? (
        <p>
          You're on the <strong>{planName(current)}</strong> plan.
        </p>
      ) : null}
      {plans.length === 0 ? <p>This server offers no paid plans: every account gets the allowance below.</p> : null}
      {!stripe && plans.length > 0 ? (
        <p>
          Plans are granted by an admin here. To change yours, <Link to="/dashboard#contact">write to the admins</Link>.
        </p>
      ) : null}
      <ul className="plans">
        <PlanCard offer={free} current={current === ""} />
        {plans.map((offer) => (
          <PlanCard key={offer.role} offer={offer} current={current === offer.role}>
            {offer.forSale && current !== offer.role && current !== "admin" ? (
              signedIn ? (
                <Form method="post">
                  <input type="hidden" name="plan" value={offer.role} />
                  <button type="submit" name="intent" value="subscribe" className="button primary" disabled={busy}>
                    Subscribe to {offer.name}
                  </button>
                </Form>
              ) : (
                <Link className="button primary" to="/login?redirectTo=%2Fpricing">
                  Log in to subscribe
                </Link>
              )
            ) : null}
          </PlanCard>
        ))}
      </ul>
      {stripe && canManage ? (
        <Form method="post" className="manage">
          <button type="submit" name="intent" value="manage" className="button" disabled={busy}>
            Manage your subscription
          </button>
          <span>Change plan, cancel, update your card or download invoices, at Stripe.</span>
        </Form>
      ) : null}
    </div>
  );
}

function PlanCard({ offer, current, children }: { offer: Offer; current: boolean; children?: ReactNode }) {
  const id = `plan-${offer.role || "free"}`;
  return (
    <li className={current ? "plan current" : "plan"} aria-labelledby={id}>
      <h2 id={id}>
        {offer.name}
        {current ? <span className="badge-current"> · your plan</span> : null}
      </h2>
      <p className="plan-price">{offer.price}</p>
      {offer.description ? <p>{offer.description}</p> : null}
      <ul className="plan-allowances">
        {offer.allowances.map((line) => (
          <li key={line}>{line}</li>
        ))}
        {offer.models.length > 0 ? <li>Models: {offer.models.join(", ")}</li> : <li>No models</li>}
        {offer.fallback ? <li>Once a budget is spent: {offer.fallback}</li> : null}
      </ul>
      {children}
    </li>
  );
}

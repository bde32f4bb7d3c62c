import { Form, useFetcher, useNavigation } from "@remix-run/react";
import { useEffect, useId, useRef, useState, type RefObject } from "react";
import { formatMicroUsd } from "~/budgets/budget-text";
import { CopyButton } from "~/components/chat/copy-button";
import { FormOutcome } from "~/components/form-outcome";
import { LocalTime } from "~/components/time/local-time";
import { API_KEY_EXPIRIES, API_KEY_EXPIRY_CHOICES, DEFAULT_API_KEY_EXPIRY } from "~/data/api-key-expiry";
import type { ApiKeyResult, CreatedApiKey } from "~/data/api-key-intents.server";
import type { ApiKeyView } from "~/data/api-keys.server";
import { formatNumber } from "./format";

type CreateResult = Extract<ApiKeyResult, { intent: "create" }>;

/**
 * Personal API keys (posted to the dashboard's action): create one, its
 * secret shown once; the list, with what each key spent; Revoke.
 */
export function ApiKeys({
  keys,
  apiAccess,
  baseUrl,
  maxNameChars,
  now,
  result,
}: {
  keys: ApiKeyView[] | null;
  /** Whether the user's role may use the API now; null when that is not known right now. */
  apiAccess: boolean | null;
  baseUrl: string;
  maxNameChars: number;
  now: string;
  result?: ApiKeyResult;
}) {
  const createResult = result?.intent === "create" ? result : undefined;
  const created = createResult && "created" in createResult ? createResult.created : undefined;
  // A key revoked at once takes its secret off the page with it.
  const shown = created && (keys === null || keys.some((key) => key.id === created.key.id)) ? created : undefined;
  return (
    <>
      <p>
        A key lets your own scripts and apps use the assistant through its OpenAI-compatible API, as you: with your
        plan, counted against your daily messages and budgets.
      </p>
      {apiAccess === false ? (
        <p className="page-notice" role="status">
          Your plan has no API access at the moment: calls with your keys are refused until an admin turns it on for
          your plan. Your keys stay as they are.
        </p>
      ) : null}
      <CreateKeyForm maxNameChars={maxNameChars} result={createResult} />
      {shown ? <NewKey key={shown.key.id} created={shown} baseUrl={baseUrl} /> : null}
      <KeyList keys={keys} now={now} />
    </>
  );
}

function CreateKeyForm({ maxNameChars, result }: { maxNameChars: number; result?: CreateResult }) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "create-api-key";
  const formRef = useRef<HTMLFormElement>(null);
  const nameRef = useRef<HTMLInputElement>(null);
  const failed = result && "values" in result ? result : undefined;
  const createdId = result && "created" in result ? result.created.key.id : undefined;
  const nameError = failed?.fieldErrors?.name;
  const expiryError = failed?.fieldErrors?.expiry;
  // A key made: the form is empty for the next one. A name refused: back to the name.
  useEffect(() => {
    if (createdId) formRef.current?.reset();
  }, [createdId]);
  useEffect(() => {
    if (nameError) nameRef.current?.focus();
  }, [failed, nameError]);
  const typedExpiry = API_KEY_EXPIRIES.find((expiry) => expiry === failed?.values.expiry);
  return (
    <Form
      ref={formRef}
      method="post"
      className="api-key-form"
      aria-labelledby="api-key-create-title"
      preventScrollReset
      noValidate
    >
      <h3 id="api-key-create-title">Create a key</h3>
      <input type="hidden" name="intent" value="create-api-key" />
      <div className="api-key-fields">
        <div className="api-key-field">
          <label htmlFor="api-key-name">Name</label>
          <input
            ref={nameRef}
            id="api-key-name"
            name="name"
            autoComplete="off"
            placeholder="e.g. Laptop scripts"
            defaultValue={failed?.values.name ?? ""}
            maxLength={maxNameChars}
            required
            aria-invalid={nameError ? true : undefined}
            aria-describedby={nameError ? "api-key-name-error" : undefined}
          />
        </div>
        <div className="api-key-field">
          <label htmlFor="api-key-expiry">Expires</label>
          <select
            id="api-key-expiry"
            name="expiry"
            defaultValue={typedExpiry ?? DEFAULT_API_KEY_EXPIRY}
            aria-invalid={expiryError ? true : undefined}
            aria-describedby={expiryError ? "api-key-expiry-error" : undefined}
          >
            {API_KEY_EXPIRIES.map((expiry) => (
              <option key={expiry} value={expiry}>
                {API_KEY_EXPIRY_CHOICES[expiry].label}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button" disabled={busy}>
          {busy ? "Creating…" : "Create key"}
        </button>
      </div>
      <FormOutcome error={failed?.error}>
        {nameError ? (
          <p id="api-key-name-error" className="form-error">
            {nameError}
          </p>
        ) : null}
        {expiryError ? (
          <p id="api-key-expiry-error" className="form-error">
            {expiryError}
          </p>
        ) : null}
      </FormOutcome>
    </Form>
  );
}

/** The secret, this once: copied now or never (only its hash is kept), with how to call the API. */
function NewKey({ created, baseUrl }: { created: CreatedApiKey; baseUrl: string }) {
  const [dismissed, setDismissed] = useState(false);
  const titleRef = useRef<HTMLHeadingElement>(null);
  // Straight to the box, so the key is read before anything else.
  useEffect(() => titleRef.current?.focus(), []);
  if (dismissed) return null;
  const command = `curl ${baseUrl}/models -H "Authorization: Bearer ${created.secret}"`;
  return (
    <section className="new-api-key" aria-labelledby="new-api-key-title">
      <h3 id="new-api-key-title" ref={titleRef} tabIndex={-1}>
        Your new key “{created.key.name}”
      </h3>
      <p>
        <strong>Copy it now: it is shown only this once.</strong> Keep it secret: anyone who has it can use the
        assistant as you. If you lose it, revoke it and create another.
      </p>
      <div className="copy-line">
        <code className="secret">{created.secret}</code>
        <CopyButton text={created.secret} label="Copy key" />
      </div>
      <p className="new-api-key-label">Base URL</p>
      <div className="copy-line">
        <code>{baseUrl}</code>
        <CopyButton text={baseUrl} label="Copy base URL" />
      </div>
      <p className="new-api-key-label">Try it</p>
      <div className="copy-line">
        <code>{command}</code>
        <CopyButton text={command} label="Copy command" />
      </div>
      <p>
        <button type="button" className="button" onClick={() => setDismissed(true)}>
          Done, I've copied it
        </button>
      </p>
    </section>
  );
}

function KeyList({ keys, now }: { keys: ApiKeyView[] | null; now: string }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const revoked = useRevokedNotice(keys, headingRef);
  return (
    <>
      <h3 id="api-key-list-title" ref={headingRef} tabIndex={-1}>
        Your keys
      </h3>
      <FormOutcome notice={revoked} />
      {keys === null ? (
        <p className="form-error">Your API keys cannot be loaded right now. Please try again shortly.</p>
      ) : keys.length === 0 ? (
        <p className="empty">You have no API keys.</p>
      ) : (
        <ul className="api-keys" aria-labelledby="api-key-list-title">
          {keys.map((key) => (
            <KeyRow key={key.id} apiKey={key} now={now} />
          ))}
        </ul>
      )}
    </>
  );
}

/**
 * "The key … was revoked" once a key leaves the list; and, as its row took
 * the focus with it, the focus goes to the list's heading.
 */
function useRevokedNotice(keys: ApiKeyView[] | null, headingRef: RefObject<HTMLHeadingElement>) {
  const previous = useRef(keys ?? []);
  const [notice, setNotice] = useState<string>();
  useEffect(() => {
    // A list that could not be read says nothing about what was revoked.
    if (!keys) return;
    const gone = previous.current.filter((before) => !keys.some((key) => key.id === before.id));
    previous.current = keys;
    if (gone.length !== 1) return;
    setNotice(`The key “${gone[0].name}” was revoked.`);
    if (document.activeElement === document.body) headingRef.current?.focus();
  }, [keys, headingRef]);
  return notice;
}

function KeyRow({ apiKey, now }: { apiKey: ApiKeyView; now: string }) {
  const tokens = apiKey.inputTokens + apiKey.outputTokens;
  return (
    <li className="api-key">
      <p className="api-key-title">
        <strong>{apiKey.name}</strong> <code>{apiKey.prefix}…</code>
      </p>
      <dl className="api-key-facts">
        <div>
          <dt>Created</dt>
          <dd>
            <LocalTime value={apiKey.createdAt} style="date" />
          </dd>
        </div>
        <div>
          <dt>Last used</dt>
          <dd>{apiKey.lastUsedAt ? <LocalTime value={apiKey.lastUsedAt} /> : "never"}</dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>
            <Expiry expiresAt={apiKey.expiresAt} now={now} />
          </dd>
        </div>
        <div>
          <dt>Requests</dt>
          <dd>{formatNumber(apiKey.requests)}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd>
            {formatNumber(tokens)}{" "}
            <span className="fine-print">
              ({formatNumber(apiKey.inputTokens)} in, {formatNumber(apiKey.outputTokens)} out)
            </span>
          </dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{formatMicroUsd(apiKey.costMicroUsd)}</dd>
        </div>
      </dl>
      <RevokeKey apiKey={apiKey} />
    </li>
  );
}

/** "never", the date, or "expired" (as of the page's load, the time the server and the browser share). */
function Expiry({ expiresAt, now }: { expiresAt: string | null; now: string }) {
  if (!expiresAt) return <>never</>;
  if (new Date(expiresAt) <= new Date(now)) return <span className="api-key-expired">expired</span>;
  return <LocalTime value={expiresAt} style="date" />;
}

/**
 * Revoke, confirmed first (as deleting the account is): programs using the
 * key stop working at once and it cannot be undone. A fetcher: after it the
 * dashboard's loader runs again, and the key leaves the list.
 */
function RevokeKey({ apiKey }: { apiKey: ApiKeyView }) {
  const id = useId();
  const fetcher = useFetcher<{ apiKey?: ApiKeyResult }>();
  const [confirming, setConfirming] = useState(false);
  const askRef = useRef<HTMLButtonElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  const busy = fetcher.state !== "idle";
  const answer = fetcher.state === "idle" ? fetcher.data?.apiKey : undefined;
  const error = answer && "error" in answer ? answer.error : undefined;
  // Into the question when it opens (on its safe answer), back to the button when it closes.
  useEffect(() => {
    if (confirming) cancelRef.current?.focus();
    else if (asked.current) askRef.current?.focus();
    asked.current = confirming;
  }, [confirming]);

  if (!confirming) {
    return (
      <button
        ref={askRef}
        type="button"
        className="button small danger"
        onClick={() => setConfirming(true)}
        aria-label={`Revoke ${apiKey.name}`}
      >
        Revoke
      </button>
    );
  }
  return (
    <div className="confirm-panel" role="group" aria-labelledby={`${id}-title`} aria-describedby={`${id}-text`}>
      <p id={`${id}-title`}>
        <strong>Revoke “{apiKey.name}”?</strong>
      </p>
      <p id={`${id}-text`}>Anything using this key stops working at once. This cannot be undone.</p>
      <fetcher.Form method="post" action="/dashboard" className="actions" preventScrollReset>
        <input type="hidden" name="intent" value="revoke-api-key" />
        <input type="hidden" name="id" value={apiKey.id} />
        <button type="submit" className="button danger" disabled={busy}>
          {busy ? "Revoking…" : "Revoke key"}
        </button>
        <button ref={cancelRef} type="button" className="button" onClick={() => setConfirming(false)} disabled={busy}>
          Cancel
        </button>
      </fetcher.Form>
      <FormOutcome error={error} />
    </div>
  );
}

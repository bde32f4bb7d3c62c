import { parseModelNames } from "~/settings/model-names";
import { z } from "zod";
import {
  parseFallbackModels,
  parseModelPrices,
  parseMoneyBudgets,
  parseTokenBudgets,
  type BudgetLimit,
  type ModelPrice,
} from "~/settings/budget-settings";
import { parsePlans, type Plan } from "~/settings/plan-settings";
import {
  ATTACHMENT_MAX_MB_CEILING,
  DEFAULT_ATTACHMENT_MAX_MB,
  DEFAULT_ATTACHMENT_STORAGE_MB,
  DEFAULT_ATTACHMENTS_PER_MESSAGE,
  parseRoleCount,
  parseDailyLimits,
  parseMessageMaxChars,
  parseRoleModels,
  splitList,
  type DailyLimit,
  type ModelAllowance,
  type RoleMap,
} from "~/settings/role-settings";
import { parseSmtpUrl, type SmtpSettings } from "~/mail/smtp-url";
import { parseAllowList, type AllowRule } from "~/net/allow-list";
import {
  DEFAULT_AUTH_PROVIDERS,
  nameProviders,
  parseProviderList,
  parseProviderNames,
  type AuthProvider,
} from "~/settings/auth-providers";

/**
 * Server configuration, read once from the environment and validated, so a
 * mistake fails at boot with a clear message instead of at the first request.
 */

const DEFAULT_PROJECT_ID = "demo-nuvara";

const emptyToUndefined = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);

const optionalString = z.preprocess(emptyToUndefined, z.string().optional());

/** A zod transform from a parser that throws: its message becomes the variable's issue. */
function parsedBy<V extends string | undefined, T>(parse: (value: V) => T) {
  return (value: V, ctx: z.RefinementCtx): T => {
    try {
      return parse(value);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: error instanceof Error ? error.message : String(error) });
      return z.NEVER;
    }
  };
}

const ROLE_KEY = /^[\p{L}\p{N}_.*-]{1,40}$/u;

/** MCP_OWN_SERVER_ROLES, API_ROLES, MEMORY_ROLES: comma-separated role keys ("none", "premium", a custom role word, or "*" for every role). */
function parseRoleKeys(text: string | undefined): string[] {
  const roles = splitList(text, ",");
  const bad = roles.find((role) => !ROLE_KEY.test(role) || (role.includes("*") && role !== "*"));
  if (bad !== undefined) throw new Error(`"${bad}" is not a role key (letters, digits, _ . -, or * for every role)`);
  return [...new Set(roles)];
}

const envSchema = z.object({
  NODE_ENV: optionalString,
  // Set by `remix dev` for the app server it runs (npm run dev): where the page's live-reload socket is.
  REMIX_DEV_ORIGIN: optionalString,
  FIREBASE_PROJECT_ID: optionalString,
  FIREBASE_SERVICE_ACCOUNT: optionalString,
  GOOGLE_APPLICATION_CREDENTIALS: optionalString,
  FIREBASE_API_KEY: optionalString,
  FIREBASE_AUTH_DOMAIN: optionalString,
  FIREBASE_APP_ID: optionalString,
  FIREBASE_AUTH_EMULATOR_HOST: optionalString,
  FIRESTORE_EMULATOR_HOST: optionalString,
  SESSION_DAYS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(14).default(5)),
  AUTH_CACHE_TTL_SECONDS: z.preprocess(emptyToUndefined, z.coerce.number().min(0).max(30).default(30)),
  // A running reply's lease (docs/decisions/070): renewed while it runs; past it, another instance marks it interrupted.
  RUN_LEASE_SECONDS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(2).max(300).default(30)),
  // On SIGTERM: how long running replies may take to finish before they are handed over as interrupted.
  SHUTDOWN_GRACE_SECONDS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(600).default(20)),
  BACKEND_TIMEOUT_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(100).max(30_000).default(3_000)),
  APP_URL: z.preprocess(emptyToUndefined, z.url().optional()),
  // How many proxies you control append to X-Forwarded-For (docs/configuration.md, docs/operations.md).
  TRUST_PROXY: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .toLowerCase()
      .regex(
        /^(true|false|\d{1,2})$/,
        "must be 0/false (no proxy), 1/true (one proxy) or the number of proxies in front of the app",
      )
      .transform((value) => (value === "true" ? 1 : value === "false" ? 0 : Number(value)))
      .pipe(z.number().int().min(0).max(10, "must be at most 10 proxies"))
      .default(0),
  ),
  DATABASE_URL: optionalString,
  // A connection that keeps its session (docs/decisions/097): the one LISTEN connection and migrations.
  DATABASE_DIRECT_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\/\S+$/, "must be a postgresql:// URL (a direct connection, not the pooler's)")
      .optional(),
  ),
  // What DATABASE_URL reaches: PostgreSQL itself or a session pooler, or a transaction pooler (docs/decisions/097).
  DATABASE_POOL_MODE: z.preprocess(emptyToUndefined, z.enum(["session", "transaction"]).default("session")),
  DATABASE_POOL_SIZE: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(100).default(10)),
  SESSION_RATE_LIMIT_PER_MINUTE: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(30).max(10_000).default(30),
  ),
  // Chat messages per minute, per account and per email address / per client address.
  CHAT_RATE_LIMIT_PER_MINUTE: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(10_000).default(20)),
  CHAT_RATE_LIMIT_PER_ADDRESS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(100_000).default(120)),
  // Sends and uploads being admitted at once per instance; the excess is refused at once (docs/decisions/096).
  CHAT_ADMISSION_LIMIT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(10_000).default(16)),
  UPLOAD_ADMISSION_LIMIT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(10_000).default(32)),
  // The admin inbox's abuse limits, per hour (contact form and reports).
  CONTACT_RATE_LIMIT_PER_EMAIL: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(10_000).default(5)),
  CONTACT_RATE_LIMIT_PER_ADDRESS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1).max(100_000).default(20),
  ),
  CONTACT_RATE_LIMIT_OVERALL: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1).max(1_000_000).default(200),
  ),
  REPORT_RATE_LIMIT_PER_ACCOUNT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(10_000).default(30)),
  REPORT_RATE_LIMIT_PER_ADDRESS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1).max(100_000).default(60),
  ),
  // Approval before a server's tool acts (docs/decisions/091): how long a call waits for a person before it is denied.
  TOOL_APPROVAL_TIMEOUT_SECONDS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1).max(86_400).default(600),
  ),
  // Calls of servers' tools per account and minute; model steps (tool round trips) per reply.
  TOOL_CALLS_PER_MINUTE: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(10_000).default(30)),
  // Roles whose users may add their own tool servers (docs/decisions/094); empty: nobody.
  MCP_OWN_SERVER_ROLES: z.preprocess(emptyToUndefined, z.string().optional().transform(parsedBy(parseRoleKeys))),
  API_ROLES: z.preprocess(emptyToUndefined, z.string().optional().transform(parsedBy(parseRoleKeys))),
  // Roles whose users have memory across chats (docs/decisions/103); unset: every role.
  MEMORY_ROLES: z.preprocess(emptyToUndefined, z.string().optional().transform(parsedBy(parseRoleKeys))),
  TOOL_MAX_STEPS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(50).default(5)),
  // Prompt-tool runs (POST /tools/<id>, each a new conversation) per account per minute.
  TOOL_RUN_RATE_LIMIT_PER_MINUTE: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1).max(10_000).default(20),
  ),
  // The assistant's model provider (ADR 014, docs/configuration.md) and per-role policy (app/settings/role-settings.ts).
  LLM_BASE_URL: z.preprocess(emptyToUndefined, z.url().optional()),
  LLM_API_KEY: optionalString,
  LLM_MODELS: optionalString,
  LLM_MODEL_NAMES: z.preprocess(emptyToUndefined, z.string().optional().transform(parsedBy(parseModelNames))),
  LLM_ROLE_MODELS: optionalString,
  LLM_TIMEOUT_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1_000).max(600_000).default(60_000)),
  QUOTA_DAILY_MESSAGES: optionalString,
  MESSAGE_MAX_CHARS: optionalString,
  // An embeddings model at LLM_BASE_URL: documents' passages are also found by meaning (docs/decisions/071).
  LLM_EMBEDDING_MODEL: optionalString,
  // The model that writes new chats' titles (docs/decisions/086): a model id, or "off" for the first line
  // of the first message; unset: the cheapest of the offered models at LLM_MODEL_PRICES.
  LLM_TITLE_MODEL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .regex(/^[^\s,]+$/, 'must be one model id (no spaces or commas), or "off"')
      .optional(),
  ),
  // Models that take images (comma-separated ids, or * for all); others are sent no image parts.
  LLM_VISION_MODELS: optionalString,
  // Attachments per role (docs/decisions/071): largest file, files per message, storage per user.
  ATTACHMENT_MAX_MB: optionalString,
  ATTACHMENTS_PER_MESSAGE: optionalString,
  ATTACHMENT_STORAGE_MB: optionalString,
  // Budgets per role, per UTC day and calendar month (docs/decisions/072): tokens, and US dollars at LLM_MODEL_PRICES.
  BUDGET_DAILY_TOKENS: optionalString,
  BUDGET_MONTHLY_TOKENS: optionalString,
  BUDGET_DAILY_USD: optionalString,
  BUDGET_MONTHLY_USD: optionalString,
  // The model a role's replies use once a budget is spent (instead of refusing).
  BUDGET_FALLBACK_MODEL: optionalString,
  // US dollars per million input/output tokens, per model: model=input/output;...
  LLM_MODEL_PRICES: optionalString,
  // The longest reply a budgeted role's reply may be, in tokens (lower when less budget is left).
  // Plans on /pricing (docs/decisions/073): a JSON list of {name, role, price, description?, stripePrice?}.
  PLANS: optionalString,
  // Stripe (docs/decisions/073): with a secret key, /pricing sells the plans through Checkout.
  STRIPE_SECRET_KEY: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .regex(/^(sk|rk)_(test|live)_\S+$/, "must be a Stripe secret key (sk_test_… or sk_live_…)")
      .optional(),
  ),
  STRIPE_WEBHOOK_SECRET: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .regex(/^whsec_\S+$/, "must be the webhook's signing secret (whsec_…)")
      .optional(),
  ),
  // Where the Stripe API is; only for a local stand-in (tests). Default: Stripe itself.
  STRIPE_API_URL: z.preprocess(emptyToUndefined, z.url().optional()),
  LLM_MAX_OUTPUT_TOKENS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(64).max(1_000_000).default(4096)),
  // MCP tools (docs/decisions/089): the longest a tool call may run, and the most of its result the model reads.
  MCP_CALL_TIMEOUT_MS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
  ),
  MCP_RESULT_MAX_CHARS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1_000).max(1_000_000).default(20_000),
  ),
  // Sign-in methods on /login (app/settings/auth-providers.ts): each parsed here, checked together below.
  AUTH_PROVIDERS: z.preprocess(
    emptyToUndefined,
    z.string().default(DEFAULT_AUTH_PROVIDERS).transform(parsedBy(parseProviderList)),
  ),
  AUTH_PROVIDER_NAMES: z.preprocess(emptyToUndefined, z.string().optional().transform(parsedBy(parseProviderNames))),
  // GET /metrics answers only with this bearer token (404 when unset; ADR 052).
  METRICS_TOKEN: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .min(16, "must be at least 16 characters (e.g. openssl rand -hex 32)")
      .regex(/^\S+$/, "must not contain spaces")
      .optional(),
  ),
  // Seals secrets an admin gives a tool server (a header's value) at rest (docs/decisions/090).
  TOOLS_SECRET_KEY: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .refine((value) => Buffer.from(value, "base64").length === 32, {
        message: "must be 32 random bytes in base64 (e.g. openssl rand -base64 32)",
      })
      .transform((value) => Buffer.from(value, "base64"))
      .optional(),
  ),
  // Admins' replies to inbox messages go out by email through this server (app/mail/reply-mail.server.ts).
  SMTP_URL: z.preprocess(emptyToUndefined, z.string().optional().transform(parsedBy(parseSmtpUrl))),
  // Web Push for "a reply is done" (docs/decisions/101): both keys or neither; `npx web-push generate-vapid-keys`.
  VAPID_PUBLIC_KEY: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .refine((value) => /^[A-Za-z0-9_-]+$/.test(value) && Buffer.from(value, "base64url").length === 65, {
        message: "must be a P-256 public key, 65 bytes in base64url (npx web-push generate-vapid-keys)",
      })
      .optional(),
  ),
  VAPID_PRIVATE_KEY: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .refine((value) => /^[A-Za-z0-9_-]+$/.test(value) && Buffer.from(value, "base64url").length === 32, {
        message: "must be a P-256 private key, 32 bytes in base64url (npx web-push generate-vapid-keys)",
      })
      .optional(),
  ),
  // Who the push services may contact about this server's messages.
  VAPID_SUBJECT: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .refine((value) => /^mailto:[^\s@]+@[^\s@]+$/.test(value) || /^https:\/\/[^\s]+$/.test(value), {
        message: "must be mailto:someone@example.com or an https:// URL",
      })
      .optional(),
  ),
  // A reply that ran longer than this is "long": a user who chose it gets an email when it ends.
  NOTIFY_EMAIL_AFTER_SECONDS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(86_400).default(60)),
  // Internal places the server's outbound requests may reach anyway (docs/decisions/088): hosts, addresses, ranges, ports.
  OUTBOUND_ALLOW: z.preprocess(emptyToUndefined, z.string().optional().transform(parsedBy(parseAllowList))),
  // The assistant's web search (docs/configuration.md): off, a SearXNG instance, or the Brave Search API.
  SEARCH_PROVIDER: z.preprocess(emptyToUndefined, z.enum(["off", "searxng", "brave"]).default("off")),
  SEARCH_URL: z.preprocess(emptyToUndefined, z.url({ protocol: /^https?$/ }).optional()),
  SEARCH_API_KEY: optionalString,
  SEARCH_RESULTS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(20).default(5)),
  // One deadline for a search or a page read, from the first byte sent to the last one read.
  SEARCH_TIMEOUT_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(500).max(60_000).default(10_000)),
  LOG_LEVEL: z.preprocess(
    emptyToUndefined,
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  ),
  // Default: pretty in local mode, json with a real project.
  LOG_FORMAT: z.preprocess(emptyToUndefined, z.enum(["json", "pretty"]).optional()),
});
/** Every variable the configuration reads (docs/configuration.md and .env.example document each one). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

export type Mode = "real" | "local";

export interface Config {
  mode: Mode;
  /** Development builds only (npm run dev): the dev server's origin, which pages reload through. */
  devReloadOrigin?: string;
  projectId: string;
  serviceAccount?: Record<string, unknown>;
  authEmulatorHost?: string;
  firestoreEmulatorHost?: string;
  sessionDays: number;
  authCacheTtlMs: number;
  /** A running reply's lease, and the SIGTERM grace for running replies (docs/decisions/070). */
  runLeaseSeconds: number;
  shutdownGraceMs: number;
  backendTimeoutMs: number;
  appOrigin?: string;
  trustProxy: boolean;
  /**
   * Proxies in front of the app that append to X-Forwarded-For (TRUST_PROXY):
   * the client is the entry this many from the right. 0: the header is ignored.
   */
  trustedProxyHops: number;
  databaseUrl?: string;
  /** DATABASE_DIRECT_URL: where what needs a session goes (the LISTEN connection, migrations). */
  databaseDirectUrl?: string;
  /** Whether DATABASE_URL is a transaction pooler, where a session's state does not last (docs/decisions/097). */
  databasePoolMode: "session" | "transaction";
  databasePoolSize: number;
  sessionRateLimitPerMinute: number;
  /** Chat messages per minute: per account and per email address, and per client address. */
  chatLimits: { perAccount: number; perAddress: number };
  /**
   * Requests this instance admits at once (docs/decisions/096): chat sends from
   * arrival until their reply's run is recorded, uploads until answered (a document until it joins the reading queue).
   */
  admission: { chatSends: number; uploads: number };
  /** Inbox abuse limits, each per hour (admin inbox: contact form and reports). */
  inboxLimits: {
    contactPerEmail: number;
    contactPerAddress: number;
    contactOverall: number;
    reportPerAccount: number;
    reportPerAddress: number;
  };
  /** Prompt-tool runs per account per minute (each starts a conversation). */
  toolRunRateLimitPerMinute: number;
  /** Servers' tools (docs/decisions/091): the wait for an approval, calls per account a minute, model steps per reply. */
  toolCalls: { approvalTimeoutMs: number; perMinute: number; maxSteps: number };
  /** Role keys whose users may add their own tool servers (docs/decisions/094); "*": every role. */
  ownServerRoles: string[];
  /** Role keys whose users may call the OpenAI-compatible API with personal keys (docs/decisions/099); "*": every role. */
  apiRoles: string[];
  /** Role keys whose users have memory across chats (docs/decisions/103); "*": every role. */
  memoryRoles: string[];
  /** The assistant's model provider and per-role policy (never sent to the browser). */
  llm: {
    baseURL?: string;
    apiKey?: string;
    /** Configured model ids; the first is the default. Empty: ask the endpoint, or local fallbacks. */
    models: string[];
    /** Readable names for model ids (LLM_MODEL_NAMES); an id without one shows as itself. */
    modelNames: Map<string, string>;
    /** Which models each role may use; roles not listed may use all. */
    roleModels: RoleMap<ModelAllowance>;
    /** Longest wait for the model's first token, and between two tokens. */
    timeoutMs: number;
    /** Embeddings model id at baseURL (LLM_EMBEDDING_MODEL); unset: passages are found by full-text search alone. */
    embeddingModel?: string;
    /** The model that writes new chats' titles (LLM_TITLE_MODEL): an id, "off", or unset (the cheapest offered). */
    titleModel?: string;
  };
  /** MCP tool calls (docs/decisions/089): each call's deadline, and the longest result text the model is given. */
  mcp: { callTimeoutMs: number; resultMaxChars: number };
  /** Daily message quota per role; null = unlimited. */
  dailyLimits: RoleMap<DailyLimit>;
  /** Longest chat message per role, in characters. */
  messageMaxChars: RoleMap<number>;
  /** Which models accept images: ids, or "*" for every model. */
  visionModels: readonly string[] | "*";
  /** Attachment limits per role: MB per file, files per message, MB stored per user. */
  attachments: { maxMb: RoleMap<number>; perMessage: RoleMap<number>; storageMb: RoleMap<number> };
  /** Token and money budgets per role (null: none), the fallback model once spent, and model prices. */
  budgets: {
    dailyTokens: RoleMap<BudgetLimit>;
    monthlyTokens: RoleMap<BudgetLimit>;
    dailyMicroUsd: RoleMap<BudgetLimit>;
    monthlyMicroUsd: RoleMap<BudgetLimit>;
    fallbackModels: RoleMap<string>;
    maxOutputTokens: number;
  };
  modelPrices: ReadonlyMap<string, ModelPrice>;
  /** The plans /pricing offers; empty: none (an admin sets roles). */
  plans: Plan[];
  /** Stripe, when configured: Checkout, the customer portal and the webhook. */
  stripe?: { secretKey: string; webhookSecret: string; apiUrl?: URL };
  /** The bearer token GET /metrics requires; unset: /metrics is a 404. */
  metricsToken?: string;
  /** The key that seals tool servers' secrets (TOOLS_SECRET_KEY); unset: no server with a secret can be added. */
  toolsSecretKey?: Buffer;
  /** Outbound requests made for tools (app/net/outbound.server.ts): the internal places the operator allows. */
  outbound: { allow: AllowRule[] };
  /** The assistant's web search; unset: off (no web_search or read_page tool). */
  search?: SearchSettings;
  /** The logger's level and line format (app/log/logger.server.ts). */
  log: { level: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent"; format: "json" | "pretty" };
  /** Where admins' replies are sent by email; unset: replies are stored and shown, and mailto stays. */
  smtp?: SmtpSettings;
  /** Telling people a reply is done (docs/decisions/101): Web Push when the VAPID keys are set, and the email fallback. */
  notify: { vapid?: VapidSettings; emailAfterMs: number };
  /** The sign-in methods /login offers, in order (public: sent to the login page). */
  authProviders: AuthProvider[];
  /** Sent to the browser: only public values (the web config is public by design). */
  publicFirebase: {
    apiKey: string;
    authDomain?: string;
    projectId: string;
    appId?: string;
    authEmulatorUrl?: string;
  };
}

export interface SearchSettings {
  provider: "searxng" | "brave";
  /** SearXNG's base URL, or the Brave Search API's (its own unless overridden). */
  url: string;
  apiKey?: string;
  /** Results a search gives the model. */
  results: number;
  /** One deadline for a search or a page read. */
  timeoutMs: number;
}

export interface VapidSettings {
  publicKey: string;
  privateKey: string;
  /** mailto: or https:, sent to the push services with every message. */
  subject: string;
}

/** Both keys or neither: one alone is a mistake, not "push off". */
function vapidSettings(e: z.infer<typeof envSchema>): VapidSettings | undefined {
  if (!e.VAPID_PUBLIC_KEY && !e.VAPID_PRIVATE_KEY) return undefined;
  if (!e.VAPID_PUBLIC_KEY || !e.VAPID_PRIVATE_KEY) {
    throw new ConfigError(
      "VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY go together: set both (npx web-push generate-vapid-keys) or neither (push off).",
    );
  }
  const subject = e.VAPID_SUBJECT ?? (e.APP_URL?.startsWith("https://") ? new URL(e.APP_URL).origin : undefined);
  if (!subject) {
    throw new ConfigError(
      "VAPID_SUBJECT is required with the VAPID keys (unless APP_URL is https://): mailto:you@example.com or an https:// URL.",
    );
  }
  return { publicKey: e.VAPID_PUBLIC_KEY, privateKey: e.VAPID_PRIVATE_KEY, subject };
}

const BRAVE_API_URL = "https://api.search.brave.com";

export class ConfigError extends Error {}

function searchSettings(e: z.infer<typeof envSchema>): SearchSettings | undefined {
  if (e.SEARCH_PROVIDER === "off") return undefined;
  if (e.SEARCH_PROVIDER === "searxng" && !e.SEARCH_URL) {
    throw new ConfigError("SEARCH_URL is required with SEARCH_PROVIDER=searxng: the SearXNG instance's address.");
  }
  if (e.SEARCH_PROVIDER === "brave" && !e.SEARCH_API_KEY) {
    throw new ConfigError("SEARCH_API_KEY is required with SEARCH_PROVIDER=brave: the Brave Search API's key.");
  }
  return {
    provider: e.SEARCH_PROVIDER,
    url: (e.SEARCH_URL ?? BRAVE_API_URL).replace(/\/+$/, ""),
    apiKey: e.SEARCH_API_KEY,
    results: e.SEARCH_RESULTS,
    timeoutMs: e.SEARCH_TIMEOUT_MS,
  };
}

function roleSetting<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new ConfigError(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Its messages already name the variable to fix. */
function providerSetting<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new ConfigError(`Invalid configuration: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export function parseConfig(env: NodeJS.ProcessEnv): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
    throw new ConfigError(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;

  let serviceAccount: Record<string, unknown> | undefined;
  if (e.FIREBASE_SERVICE_ACCOUNT) {
    try {
      serviceAccount = JSON.parse(e.FIREBASE_SERVICE_ACCOUNT);
    } catch {
      throw new ConfigError("FIREBASE_SERVICE_ACCOUNT must be the service account's JSON.");
    }
  }
  // A real project needs a credential; a project id alone never makes one.
  const mode: Mode = serviceAccount || e.GOOGLE_APPLICATION_CREDENTIALS ? "real" : "local";

  const projectId =
    e.FIREBASE_PROJECT_ID ??
    (typeof serviceAccount?.project_id === "string" ? serviceAccount.project_id : undefined) ??
    (mode === "local" ? DEFAULT_PROJECT_ID : undefined);
  if (!projectId) throw new ConfigError("FIREBASE_PROJECT_ID is required with a real project.");

  const authEmulatorHost = e.FIREBASE_AUTH_EMULATOR_HOST ?? (mode === "local" ? "127.0.0.1:9099" : undefined);
  const firestoreEmulatorHost = e.FIRESTORE_EMULATOR_HOST ?? (mode === "local" ? "127.0.0.1:8080" : undefined);

  // An emulator accepts unsigned tokens: pointed at a real project it would let
  // anyone forge a session. A demo- project never reaches Google.
  if ((authEmulatorHost || firestoreEmulatorHost) && !projectId.startsWith("demo-")) {
    throw new ConfigError(
      `Refusing to start: an emulator variable is set for project "${projectId}", which is not a demo- project. ` +
        "Unset FIREBASE_AUTH_EMULATOR_HOST / FIRESTORE_EMULATOR_HOST, or use a demo- project id.",
    );
  }
  if (e.LLM_EMBEDDING_MODEL && !e.LLM_BASE_URL) {
    throw new ConfigError(
      "LLM_EMBEDDING_MODEL needs LLM_BASE_URL: the embeddings model is asked at {LLM_BASE_URL}/embeddings.",
    );
  }
  if (e.DATABASE_DIRECT_URL && !e.DATABASE_URL) {
    throw new ConfigError("DATABASE_DIRECT_URL is set without DATABASE_URL: it is only for what needs a session.");
  }
  if (e.STRIPE_SECRET_KEY && !e.STRIPE_WEBHOOK_SECRET) {
    throw new ConfigError(
      "STRIPE_WEBHOOK_SECRET is required with STRIPE_SECRET_KEY: without it no subscription could ever set a role.",
    );
  }
  const plans = roleSetting("PLANS", () => parsePlans(e.PLANS));
  const unpriced = plans.filter((plan) => !plan.stripePrice).map((plan) => plan.name);
  if (e.STRIPE_SECRET_KEY && unpriced.length > 0) {
    throw new ConfigError(
      `PLANS: with Stripe configured every plan needs its stripePrice (missing for ${unpriced.join(", ")}).`,
    );
  }
  if (mode === "real" && !e.FIREBASE_API_KEY) {
    throw new ConfigError("FIREBASE_API_KEY (the web app's config) is required with a real project.");
  }

  return {
    mode,
    projectId,
    serviceAccount,
    authEmulatorHost,
    firestoreEmulatorHost,
    sessionDays: e.SESSION_DAYS,
    authCacheTtlMs: e.AUTH_CACHE_TTL_SECONDS * 1000,
    runLeaseSeconds: e.RUN_LEASE_SECONDS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_SECONDS * 1000,
    backendTimeoutMs: e.BACKEND_TIMEOUT_MS,
    appOrigin: e.APP_URL ? new URL(e.APP_URL).origin : undefined,
    trustProxy: e.TRUST_PROXY > 0,
    trustedProxyHops: e.TRUST_PROXY,
    databaseUrl: e.DATABASE_URL,
    databaseDirectUrl: e.DATABASE_DIRECT_URL,
    databasePoolMode: e.DATABASE_POOL_MODE,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    sessionRateLimitPerMinute: e.SESSION_RATE_LIMIT_PER_MINUTE,
    chatLimits: { perAccount: e.CHAT_RATE_LIMIT_PER_MINUTE, perAddress: e.CHAT_RATE_LIMIT_PER_ADDRESS },
    admission: { chatSends: e.CHAT_ADMISSION_LIMIT, uploads: e.UPLOAD_ADMISSION_LIMIT },
    llm: {
      baseURL: e.LLM_BASE_URL?.replace(/\/+$/, ""),
      apiKey: e.LLM_API_KEY,
      models: splitList(e.LLM_MODELS, ","),
      modelNames: e.LLM_MODEL_NAMES ?? new Map(),
      roleModels: roleSetting("LLM_ROLE_MODELS", () => parseRoleModels(e.LLM_ROLE_MODELS)),
      timeoutMs: e.LLM_TIMEOUT_MS,
      embeddingModel: e.LLM_EMBEDDING_MODEL,
      titleModel: e.LLM_TITLE_MODEL,
    },
    mcp: { callTimeoutMs: e.MCP_CALL_TIMEOUT_MS, resultMaxChars: e.MCP_RESULT_MAX_CHARS },
    dailyLimits: roleSetting("QUOTA_DAILY_MESSAGES", () => parseDailyLimits(e.QUOTA_DAILY_MESSAGES)),
    messageMaxChars: roleSetting("MESSAGE_MAX_CHARS", () => parseMessageMaxChars(e.MESSAGE_MAX_CHARS)),
    visionModels: e.LLM_VISION_MODELS?.trim() === "*" ? "*" : splitList(e.LLM_VISION_MODELS, ","),
    attachments: {
      maxMb: roleSetting("ATTACHMENT_MAX_MB", () =>
        parseRoleCount(e.ATTACHMENT_MAX_MB, DEFAULT_ATTACHMENT_MAX_MB, 1, ATTACHMENT_MAX_MB_CEILING, "file size in MB"),
      ),
      perMessage: roleSetting("ATTACHMENTS_PER_MESSAGE", () =>
        parseRoleCount(e.ATTACHMENTS_PER_MESSAGE, DEFAULT_ATTACHMENTS_PER_MESSAGE, 0, 50, "files per message"),
      ),
      storageMb: roleSetting("ATTACHMENT_STORAGE_MB", () =>
        parseRoleCount(e.ATTACHMENT_STORAGE_MB, DEFAULT_ATTACHMENT_STORAGE_MB, 0, 1_000_000, "storage in MB"),
      ),
    },
    budgets: {
      dailyTokens: roleSetting("BUDGET_DAILY_TOKENS", () => parseTokenBudgets(e.BUDGET_DAILY_TOKENS)),
      monthlyTokens: roleSetting("BUDGET_MONTHLY_TOKENS", () => parseTokenBudgets(e.BUDGET_MONTHLY_TOKENS)),
      dailyMicroUsd: roleSetting("BUDGET_DAILY_USD", () => parseMoneyBudgets(e.BUDGET_DAILY_USD)),
      monthlyMicroUsd: roleSetting("BUDGET_MONTHLY_USD", () => parseMoneyBudgets(e.BUDGET_MONTHLY_USD)),
      fallbackModels: roleSetting("BUDGET_FALLBACK_MODEL", () => parseFallbackModels(e.BUDGET_FALLBACK_MODEL)),
      maxOutputTokens: e.LLM_MAX_OUTPUT_TOKENS,
    },
    modelPrices: roleSetting("LLM_MODEL_PRICES", () => parseModelPrices(e.LLM_MODEL_PRICES)),
    plans,
    stripe:
      e.STRIPE_SECRET_KEY && e.STRIPE_WEBHOOK_SECRET
        ? {
            secretKey: e.STRIPE_SECRET_KEY,
            webhookSecret: e.STRIPE_WEBHOOK_SECRET,
            apiUrl: e.STRIPE_API_URL ? new URL(e.STRIPE_API_URL) : undefined,
          }
        : undefined,
    authProviders: providerSetting(() => nameProviders(e.AUTH_PROVIDERS, e.AUTH_PROVIDER_NAMES ?? new Map())),
    inboxLimits: {
      contactPerEmail: e.CONTACT_RATE_LIMIT_PER_EMAIL,
      contactPerAddress: e.CONTACT_RATE_LIMIT_PER_ADDRESS,
      contactOverall: e.CONTACT_RATE_LIMIT_OVERALL,
      reportPerAccount: e.REPORT_RATE_LIMIT_PER_ACCOUNT,
      reportPerAddress: e.REPORT_RATE_LIMIT_PER_ADDRESS,
    },
    toolRunRateLimitPerMinute: e.TOOL_RUN_RATE_LIMIT_PER_MINUTE,
    toolCalls: {
      approvalTimeoutMs: e.TOOL_APPROVAL_TIMEOUT_SECONDS * 1000,
      perMinute: e.TOOL_CALLS_PER_MINUTE,
      maxSteps: e.TOOL_MAX_STEPS,
    },
    ownServerRoles: e.MCP_OWN_SERVER_ROLES ?? [],
    // Unset reads as no roles (the list parser's empty list): every role, then.
    apiRoles: e.API_ROLES?.length ? e.API_ROLES : ["*"],
    memoryRoles: e.MEMORY_ROLES?.length ? e.MEMORY_ROLES : ["*"],
    metricsToken: e.METRICS_TOKEN,
    toolsSecretKey: e.TOOLS_SECRET_KEY,
    outbound: { allow: e.OUTBOUND_ALLOW ?? [] },
    search: searchSettings(e),
    smtp: e.SMTP_URL,
    notify: { vapid: vapidSettings(e), emailAfterMs: e.NOTIFY_EMAIL_AFTER_SECONDS * 1000 },
    log: { level: e.LOG_LEVEL, format: e.LOG_FORMAT ?? (mode === "local" ? "pretty" : "json") },
    devReloadOrigin:
      e.NODE_ENV === "development" && e.REMIX_DEV_ORIGIN ? new URL(e.REMIX_DEV_ORIGIN).origin : undefined,
    publicFirebase: {
      apiKey: e.FIREBASE_API_KEY ?? "demo-api-key",
      // The popup flow needs an auth domain; the emulator serves its own handler.
      authDomain: e.FIREBASE_AUTH_DOMAIN ?? (mode === "local" ? `${projectId}.firebaseapp.com` : undefined),
      projectId,
      appId: e.FIREBASE_APP_ID,
      authEmulatorUrl: authEmulatorHost ? `http://${authEmulatorHost}` : undefined,
    },
  };
}

let cached: Config | undefined;

export function getConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

/** For tests that change the environment: read it again on next use. */
export function resetConfig() {
  cached = undefined;
}

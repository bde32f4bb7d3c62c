/**
 * A server's request for input from the user while its tool runs (MCP
 * elicitation, form mode; docs/decisions/095), shared by the server and the
 * page: the form's fields as read from the server's schema, what the card in
 * the reply shows, and the check of an answer against the fields.
 *
 * MCP allows only a flat object of plain fields: text (optionally an email,
 * a web address, a date or a date and time), a number or an integer, a yes/no
 * switch, one choice or several choices among listed values. A request with
 * anything else cannot be shown as a form, and is declined.
 */

export type ElicitationFieldKind =
  "text" | "email" | "url" | "date" | "date-time" | "number" | "integer" | "boolean" | "choice" | "choices";

export interface ElicitationOption {
  value: string;
  label: string;
}

export interface ElicitationField {
  /** The property's name in the answer. */
  name: string;
  label: string;
  description?: string;
  kind: ElicitationFieldKind;
  required: boolean;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  /** For `choice` and `choices`. */
  options?: ElicitationOption[];
  minItems?: number;
  maxItems?: number;
  /** The server's default, shown filled in. */
  default?: string | number | boolean | string[];
}

export type ElicitationStatus = "pending" | "accepted" | "declined" | "expired" | "cancelled";

export type ElicitationAction = "accept" | "decline" | "cancel";

/** A reply's request for input, as a `data-elicitation` part keyed by its id (updated in place when answered). */
export interface ToolElicitationView {
  elicitationId: string;
  /** The reply's tool step it belongs to. */
  toolCallId: string;
  server: string;
  /** The server's own words, shown as text. */
  message: string;
  fields: ElicitationField[];
  status: ElicitationStatus;
  /** ISO time after which an unanswered request is cancelled. */
  expiresAt: string;
}

export type ElicitationAnswer = Record<string, string | number | boolean | string[]>;

/** At most this many fields, options and characters are shown: a server cannot make the card unbounded. */
const MAX_FIELDS = 30;
const MAX_OPTIONS = 100;
const MAX_TEXT = 1_000;
/** The longest text answer when the server sets no maximum. */
export const DEFAULT_MAX_ANSWER_CHARS = 2_000;

const STRING_FORMATS: Record<string, ElicitationFieldKind> = {
  email: "email",
  uri: "url",
  date: "date",
  "date-time": "date-time",
};

type Schema = Record<string, unknown>;

function isObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const text = (value: unknown, max = MAX_TEXT) => (typeof value === "string" ? value.slice(0, max) : undefined);
const count = (value: unknown) =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
const finite = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

/** Listed values with their labels: `oneOf`/`anyOf` of `{const, title}`, or `enum` (with the older `enumNames`). */
function optionsOf(schema: Schema): ElicitationOption[] | undefined {
  const titled = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(titled)) {
    const options = titled.flatMap((item) =>
      isObject(item) && typeof item.const === "string"
        ? [{ value: item.const, label: text(item.title) ?? item.const }]
        : [],
    );
    return options.length === titled.length && options.length > 0 ? options.slice(0, MAX_OPTIONS) : undefined;
  }
  if (!Array.isArray(schema.enum) || schema.enum.length === 0) return undefined;
  if (!schema.enum.every((value) => typeof value === "string")) return undefined;
  const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
  return (schema.enum as string[])
    .slice(0, MAX_OPTIONS)
    .map((value, at) => ({ value, label: text(names[at]) ?? value }));
}

function kindOf(schema: Schema): { kind: ElicitationFieldKind; options?: ElicitationOption[] } | undefined {
  switch (schema.type) {
    case "string": {
      const options = optionsOf(schema);
      if (options) return { kind: "choice", options };
      if (schema.enum !== undefined || schema.oneOf !== undefined || schema.anyOf !== undefined) return undefined;
      if (schema.format === undefined) return { kind: "text" };
      const kind = typeof schema.format === "string" ? STRING_FORMATS[schema.format] : undefined;
      return kind ? { kind } : undefined;
    }
    case "number":
    case "integer":
    case "boolean":
      return { kind: schema.type };
    case "array": {
      const options = isObject(schema.items) ? optionsOf({ ...schema.items }) : undefined;
      return options ? { kind: "choices", options } : undefined;
    }
    default:
      return undefined;
  }
}

function defaultOf(field: ElicitationField, value: unknown): ElicitationField["default"] {
  const checked = checkValue(field, value);
  return "value" in checked ? checked.value : undefined;
}

function fieldOf(name: string, schema: unknown, required: boolean): ElicitationField | undefined {
  if (!isObject(schema)) return undefined;
  const kind = kindOf(schema);
  if (!kind) return undefined;
  const field: ElicitationField = {
    name,
    label: text(schema.title, 200) || name,
    ...(text(schema.description) ? { description: text(schema.description) } : {}),
    kind: kind.kind,
    required,
    ...(kind.options ? { options: kind.options } : {}),
  };
  const limits = {
    minLength: count(schema.minLength),
    maxLength: count(schema.maxLength),
    minimum: finite(schema.minimum),
    maximum: finite(schema.maximum),
    minItems: count(schema.minItems),
    maxItems: count(schema.maxItems),
  };
  for (const [key, value] of Object.entries(limits)) {
    if (value !== undefined) Object.assign(field, { [key]: value });
  }
  const fallback = schema.default === undefined ? undefined : defaultOf(field, schema.default);
  return fallback === undefined ? field : { ...field, default: fallback };
}

/**
 * The form for a server's `requestedSchema`, or undefined when it is not
 * the flat object of plain fields MCP allows (such a request is declined).
 */
export function formFields(requestedSchema: unknown): ElicitationField[] | undefined {
  if (!isObject(requestedSchema) || requestedSchema.type !== "object") return undefined;
  const properties = isObject(requestedSchema.properties) ? Object.entries(requestedSchema.properties) : [];
  if (properties.length > MAX_FIELDS) return undefined;
  const required = new Set(Array.isArray(requestedSchema.required) ? requestedSchema.required : []);
  const fields = properties.map(([name, schema]) => fieldOf(name, schema, required.has(name)));
  return fields.every((field) => field !== undefined) ? fields : undefined;
}

type Checked = { value: string | number | boolean | string[] } | { error: string } | { empty: true };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/;

function checkText(field: ElicitationField, value: string): Checked {
  const max = field.maxLength ?? DEFAULT_MAX_ANSWER_CHARS;
  if (field.minLength !== undefined && value.length < field.minLength) {
    return { error: `Use at least ${field.minLength} characters.` };
  }
  if (value.length > max) return { error: `Use at most ${max} characters.` };
  switch (field.kind) {
    case "email":
      return EMAIL.test(value) ? { value } : { error: "Enter an email address, like name@example.com." };
    case "url":
      return URL.canParse(value) ? { value } : { error: "Enter a full web address, like https://example.com." };
    case "date":
      return DATE.test(value) && !Number.isNaN(Date.parse(value))
        ? { value }
        : { error: "Enter a date as year-month-day." };
    case "date-time":
      return DATE_TIME.test(value) && !Number.isNaN(Date.parse(value))
        ? { value }
        : { error: "Enter a date and a time." };
    default:
      return { value };
  }
}

function checkNumber(field: ElicitationField, value: unknown): Checked {
  const number = typeof value === "string" ? Number(value.trim()) : value;
  if (typeof number !== "number" || !Number.isFinite(number)) return { error: "Enter a number." };
  if (field.kind === "integer" && !Number.isInteger(number)) return { error: "Enter a whole number." };
  if (field.minimum !== undefined && number < field.minimum) return { error: `Enter ${field.minimum} or more.` };
  if (field.maximum !== undefined && number > field.maximum) return { error: `Enter ${field.maximum} or less.` };
  return { value: number };
}

function checkChoices(field: ElicitationField, value: unknown): Checked {
  const chosen = [...new Set((Array.isArray(value) ? value : [value]).filter((item) => item !== ""))];
  const allowed = new Set(field.options?.map((option) => option.value));
  if (!chosen.every((item) => typeof item === "string" && allowed.has(item))) return { error: "Choose from the list." };
  if (chosen.length === 0) return { empty: true };
  if (field.minItems !== undefined && chosen.length < field.minItems) {
    return { error: `Choose at least ${field.minItems}.` };
  }
  if (field.maxItems !== undefined && chosen.length > field.maxItems) {
    return { error: `Choose at most ${field.maxItems}.` };
  }
  return { value: chosen as string[] };
}

/** One field's answer as the server expects it; a form's text is read as the field's type. */
function checkValue(field: ElicitationField, value: unknown): Checked {
  if (value === undefined || value === null || value === "") return { empty: true };
  switch (field.kind) {
    case "boolean":
      if (typeof value === "boolean") return { value };
      return value === "true" || value === "on"
        ? { value: true }
        : value === "false"
          ? { value: false }
          : { error: "Answer yes or no." };
    case "number":
    case "integer":
      return checkNumber(field, value);
    case "choice":
      return typeof value === "string" && field.options?.some((option) => option.value === value)
        ? { value }
        : { error: "Choose from the list." };
    case "choices":
      return checkChoices(field, value);
    default:
      return typeof value === "string" ? checkText(field, value) : { error: "Enter text." };
  }
}

/**
 * The answer to send the server, or a message per field to show the user.
 * Unknown names are left out; an unset yes/no switch is an answer (no).
 */
export function checkAnswer(
  fields: readonly ElicitationField[],
  values: Record<string, unknown>,
): { content: ElicitationAnswer } | { fieldErrors: Record<string, string> } {
  const content: ElicitationAnswer = {};
  const fieldErrors: Record<string, string> = {};
  for (const field of fields) {
    const raw = Object.hasOwn(values, field.name) ? values[field.name] : undefined;
    const checked = field.kind === "boolean" && raw === undefined ? { value: false } : checkValue(field, raw);
    if ("error" in checked) fieldErrors[field.name] = checked.error;
    else if ("value" in checked) content[field.name] = checked.value;
    else if (field.required) fieldErrors[field.name] = "This is required.";
  }
  return Object.keys(fieldErrors).length > 0 ? { fieldErrors } : { content };
}

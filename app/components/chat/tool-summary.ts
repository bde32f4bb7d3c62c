/**
 * The one line a tool step shows closed: what the built-in tool did, in
 * words ("Calculated 19.99 × 3 = 59.97"), read from its input and output.
 * The raw input and output stay behind the step's disclosure; a tool this
 * file does not know (a prompt tool, a tool added later) gets "Used <name>".
 */

/** The AI SDK's tool part states; approvals and denials included, though no built-in tool asks for one. */
export type ToolState =
  | "input-streaming"
  | "input-available"
  | "approval-requested"
  | "approval-responded"
  | "output-available"
  | "output-error"
  | "output-denied";

export interface ToolCall {
  /** The tool's id, the function name the model called (app/llm/tools.server.ts). */
  id: string;
  /** What people read for it. */
  name: string;
  state: ToolState;
  input: unknown;
  output: unknown;
}

type Field = string | number | undefined;

function field(value: unknown, key: string): Field {
  if (typeof value !== "object" || value === null) return undefined;
  const found = (value as Record<string, unknown>)[key];
  return typeof found === "string" || typeof found === "number" ? found : undefined;
}

function text(value: Field): string | undefined {
  return value === undefined ? undefined : String(value).trim() || undefined;
}

/** Long expressions are cut: the line is a summary, the disclosure has the whole input. */
const MAX_EXPRESSION = 60;

/** "19.99 * 3 / 2" as people write it: 19.99 × 3 ÷ 2. */
export function readableExpression(expression: string): string {
  const readable = expression
    .replace(/\*\*/g, "^")
    .replace(/\s*\*\s*/g, " × ")
    .replace(/\s*\/\s*/g, " ÷ ")
    .replace(/\s+/g, " ")
    .trim();
  return readable.length > MAX_EXPRESSION ? `${readable.slice(0, MAX_EXPRESSION - 1).trimEnd()}…` : readable;
}

/**
 * A number short enough for one line: at most two decimals (three significant
 * digits below 1), with `approximate` set when that rounded it. Whole numbers
 * and exponent notation are kept as they are.
 */
export function shortNumber(value: string): { text: string; approximate: boolean } {
  const match = /^-?\d+\.(\d+)$/.exec(value);
  if (!match || match[1].length <= 2) return { text: value, approximate: false };
  const number = Number(value);
  const rounded =
    Math.abs(number) >= 1
      ? number.toLocaleString("en-US", { maximumFractionDigits: 2, useGrouping: false })
      : number.toLocaleString("en-US", { maximumSignificantDigits: 3, useGrouping: false });
  return { text: rounded, approximate: rounded !== value };
}

function calculatorLine(call: ToolCall): string {
  const expression = text(field(call.input, "expression"));
  const shown = expression ? readableExpression(expression) : undefined;
  if (isRunning(call)) return shown ? `Calculating ${shown}…` : "Calculating…";
  const result = text(field(call.output, "result"));
  if (call.state !== "output-available" || result === undefined)
    return shown ? `Couldn't calculate ${shown}` : "Couldn't calculate that";
  const { text: number, approximate } = shortNumber(result);
  return `Calculated ${shown ?? "it"} ${approximate ? "≈" : "="} ${number}`;
}

function converterLine(call: ToolCall): string {
  const value = text(field(call.input, "value"));
  const from = text(field(call.input, "from"));
  const to = text(field(call.input, "to"));
  const what = value && from ? `${value} ${from}` : undefined;
  if (isRunning(call)) return what && to ? `Converting ${what} to ${to}…` : "Converting units…";
  const result = text(field(call.output, "result"));
  const toUnit = text(field(call.output, "toUnit")) ?? to;
  const fromUnit = text(field(call.output, "fromUnit")) ?? from;
  const amount = text(field(call.output, "value")) ?? value;
  if (call.state !== "output-available" || result === undefined || !toUnit)
    return what && to ? `Couldn't convert ${what} to ${to}` : "Couldn't convert that";
  const { text: number, approximate } = shortNumber(result);
  return `Converted ${amount} ${fromUnit} → ${approximate ? "about " : ""}${number} ${toUnit}`;
}

/** "America/Argentina/Buenos_Aires" → "Buenos Aires". */
export function placeOf(timeZone: string): string {
  const last = timeZone.split("/").at(-1) ?? timeZone;
  return last.replace(/_/g, " ");
}

function clockLine(call: ToolCall): string {
  const asked = text(field(call.input, "timeZone"));
  // The zone the tool used: an unknown zone falls back to UTC and says so in its note.
  const used = call.state === "output-available" ? text(field(call.output, "timeZone")) : undefined;
  const zone = used ?? asked;
  const where = !asked ? "in your time zone" : zone === "UTC" ? "in UTC" : `in ${placeOf(zone ?? asked)}`;
  if (isRunning(call)) return `Looking up the time ${where}…`;
  if (call.state !== "output-available" || text(field(call.output, "error")))
    return `Couldn't look up the time ${where}`;
  return `Looked up the time ${where}`;
}

/** Quoted and cut to a line: a query or a title comes from the model or the web. */
function quoted(value: string | undefined): string {
  if (!value) return "";
  return ` “${value.length > MAX_EXPRESSION ? `${value.slice(0, MAX_EXPRESSION - 1).trimEnd()}…` : value}”`;
}

function searchLine(call: ToolCall): string {
  const query = quoted(text(field(call.input, "query")));
  if (isRunning(call)) return `Searching the web for${query || " it"}…`;
  const output = call.output as { results?: unknown } | undefined;
  if (call.state !== "output-available" || !Array.isArray(output?.results))
    return `Couldn't search the web for${query || " that"}`;
  const count = output.results.length;
  return `Searched the web for${query || " it"}: ${count === 0 ? "nothing found" : `${count} result${count === 1 ? "" : "s"}`}`;
}

function readPageLine(call: ToolCall): string {
  const number = text(field(call.input, "number"));
  const which = number ? ` [${number}]` : "";
  if (isRunning(call)) return `Reading page${which}…`;
  const title = text(field(call.output, "title"));
  if (call.state !== "output-available" || title === undefined) return `Couldn't read page${which}`;
  return `Read${quoted(title)}${which}`;
}

/** Memory's tools (docs/decisions/103): the whole fact, as the user will find it on the memory page. */
function rememberLine(call: ToolCall): string {
  if (isRunning(call)) return "Saving to memory…";
  const saved = text(field(call.output, "saved"));
  if (call.state === "output-available" && saved !== undefined) return `Saved to memory: “${saved}”`;
  const error = text(field(call.output, "error"));
  return error ? `Couldn't save to memory: ${error}` : "Couldn't save to memory";
}

function forgetLine(call: ToolCall): string {
  if (isRunning(call)) return "Deleting from memory…";
  const output = call.output as { forgotten?: unknown } | undefined;
  if (call.state === "output-available" && Array.isArray(output?.forgotten) && output.forgotten.length > 0)
    return `Deleted from memory: ${output.forgotten.map((fact) => `“${String(fact)}”`).join(", ")}`;
  return "Couldn't delete from memory";
}

/** The tools whose step is a line with a link to the memory page rather than a disclosure. */
export const MEMORY_TOOLS: ReadonlySet<string> = new Set(["remember", "forget"]);

const LINES: Record<string, (call: ToolCall) => string> = {
  web_search: searchLine,
  read_page: readPageLine,
  calculator: calculatorLine,
  convert_units: converterLine,
  current_datetime: clockLine,
  remember: rememberLine,
  forget: forgetLine,
};

function isRunning(call: ToolCall): boolean {
  return !call.state.startsWith("output-");
}

function genericLine(call: ToolCall): string {
  if (call.state === "output-error") return `${call.name} failed`;
  if (call.state === "output-denied") return `${call.name} was not run`;
  if (call.state === "output-available") return `Used ${call.name}`;
  return `Using ${call.name}…`;
}

/** The step's closed line. */
export function toolSummary(call: ToolCall): string {
  return (LINES[call.id] ?? genericLine)(call);
}

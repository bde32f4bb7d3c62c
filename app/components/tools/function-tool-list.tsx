import type { ReactNode } from "react";
import { Link, useFetcher } from "@remix-run/react";
import type { FunctionToolSummary } from "~/data/prompt-tools/catalogue";

/**
 * The functions the assistant can call, each with an on/off switch that
 * applies to this user's chats. Signed-out visitors see what each does and
 * are invited to sign in to choose.
 */
export function FunctionToolList({ tools, signedIn }: { tools: FunctionToolSummary[]; signedIn: boolean }) {
  return (
    <>
      {signedIn ? (
        <p className="fine-print">Switch off a function and the assistant will not call it in your chats.</p>
      ) : (
        <p className="fine-print">
          <Link to="/login?redirectTo=%2Ftools">Log in</Link> to choose which functions your assistant may use.
        </p>
      )}
      <ul className="function-tools">
        {tools.map((tool) => (
          <FunctionTool key={tool.id} tool={tool} />
        ))}
      </ul>
    </>
  );
}

function FunctionTool({ tool }: { tool: FunctionToolSummary }) {
  return (
    <ToolSwitch
      id={tool.id}
      name={tool.name}
      description={tool.description}
      enabled={tool.enabled}
      action="/tools"
      fields={{ intent: "set-function", toolId: tool.id }}
    />
  );
}

/**
 * One tool with its on/off switch (null: shown without one, e.g. signed out).
 * The switch posts `fields` and enabled=on|off to `action`.
 */
export function ToolSwitch({
  id,
  name,
  description,
  enabled,
  action,
  fields,
  children,
}: {
  id: string;
  name: string;
  description: string;
  enabled: boolean | null;
  action: string;
  fields: Record<string, string>;
  children?: ReactNode;
}) {
  const fetcher = useFetcher<{ ok?: boolean; error?: string }>();
  // Optimistic: the switch moves at once; a failure puts it back and says why.
  const pending = fetcher.formData?.get("enabled");
  const on = typeof pending === "string" ? pending === "on" : enabled;
  const nameId = `function-${id}-name`;
  const descriptionId = `function-${id}-description`;
  return (
    <li className="function-tool">
      <div>
        <h3 id={nameId}>{name}</h3>
        <p id={descriptionId}>{description}</p>
        {children}
      </div>
      {on === null ? (
        <p className="fine-print">On for every chat</p>
      ) : (
        <fetcher.Form method="post" action={action} className="switch-form">
          {Object.entries(fields).map(([field, value]) => (
            <input key={field} type="hidden" name={field} value={value} />
          ))}
          <input type="hidden" name="enabled" value={on ? "off" : "on"} />
          <button
            type="submit"
            role="switch"
            aria-checked={on}
            aria-labelledby={nameId}
            aria-describedby={descriptionId}
            className="switch"
          >
            <span className="switch-track" aria-hidden="true">
              <span className="switch-thumb" />
            </span>
            <span aria-hidden="true">{on ? "On" : "Off"}</span>
          </button>
        </fetcher.Form>
      )}
      <div aria-live="polite" className="function-status">
        {fetcher.state === "idle" && fetcher.data?.error ? (
          <p className="form-error" role="alert">
            {fetcher.data.error}
          </p>
        ) : null}
      </div>
    </li>
  );
}

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
  const fetcher = useFetcher<{ ok?: boolean; error?: string }>();
  // Optimistic: the switch moves at once; a failure puts it back and says why.
  const pending = fetcher.formData?.get("enabled");
  const on = typeof pending === "string" ? pending === "on" : tool.enabled;
  const nameId = `function-${tool.id}-name`;
  const descriptionId = `function-${tool.id}-description`;
  return (
    <li className="function-tool">
      <div>
        <h3 id={nameId}>{tool.name}</h3>
        <p id={descriptionId}>{tool.description}</p>
      </div>
      {on === null ? (
        <p className="fine-print">On for every chat</p>
      ) : (
        <fetcher.Form method="post" action="/tools" className="switch-form">
          <input type="hidden" name="intent" value="set-function" />
          <input type="hidden" name="toolId" value={tool.id} />
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

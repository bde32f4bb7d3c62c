import { Form, useSearchParams } from "@remix-run/react";

/** What the document posts below come back with when they fail (?export=failed, ?signout=failed). */
const EXPORT_FAILED = "Your data could not be collected right now. Please try again shortly.";
const SIGN_OUT_FAILED =
  "Logging out of your other devices didn't work right now. Nothing changed; please try again shortly.";

/** Download all my data; sign out of all devices. */
export function DataControls() {
  const [searchParams] = useSearchParams();
  return (
    <div className="data-controls">
      <div>
        <h3>Download your data</h3>
        <p>Your conversations with their messages, your usage history and your preferences, as one JSON file.</p>
        {/* A document post: the browser saves the answer as a file and stays on this page. */}
        <Form method="post" action="/api/account/export" reloadDocument>
          <button type="submit" className="button">
            Download my data
          </button>
        </Form>
        {searchParams.get("export") === "failed" ? (
          <p className="form-error" role="alert">
            {EXPORT_FAILED}
          </p>
        ) : null}
      </div>
      <div>
        <h3>Log out of all devices</h3>
        <p>
          Ends every session of your account, on this device and everywhere else; other devices are logged out on their
          next page.
        </p>
        <Form method="post" action="/api/account/sign-out-everywhere">
          <button type="submit" className="button">
            Log out of all devices
          </button>
        </Form>
        {searchParams.get("signout") === "failed" ? (
          <p className="form-error" role="alert">
            {SIGN_OUT_FAILED}
          </p>
        ) : null}
      </div>
    </div>
  );
}

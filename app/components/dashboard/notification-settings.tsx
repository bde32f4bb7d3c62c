import { useRevalidator } from "@remix-run/react";
import { useEffect, useId, useState } from "react";
import { FormOutcome } from "~/components/form-outcome";
import { postNotifications, pushState, subscribeThisDevice, type PushState } from "~/components/notify/push-client";
import { LocalTime } from "~/components/time/local-time";
import type { NotifySettingsView } from "~/chat/notify/notify-settings.server";

/**
 * "Tell me when a reply is done" (docs/decisions/101): this device's
 * notifications (permission asked only on the click), the devices told, each
 * with Remove, whether a notice may quote the reply, and email instead.
 * Every change goes to POST /api/notifications, then the page reads the
 * settings again.
 */
export function NotificationSettings({ settings }: { settings: NotifySettingsView | null }) {
  if (!settings) {
    return (
      <p className="form-error">Your notification settings cannot be loaded right now. Please try again shortly.</p>
    );
  }
  const { pushKey, emailAvailable } = settings;
  if (!pushKey && !emailAvailable) {
    return <p>This server is not set up to send notifications.</p>;
  }
  return (
    <div className="notification-settings">
      <p>
        When a reply finishes, fails or waits for your approval while none of your Assistant tabs is in view, you can be
        told. A notification shows the chat's title, not the reply, unless you choose otherwise below.
      </p>
      {pushKey ? <PushDevices settings={settings} pushKey={pushKey} /> : null}
      <Choices settings={settings} />
    </div>
  );
}

function PushDevices({ settings, pushKey }: { settings: NotifySettingsView; pushKey: string }) {
  const revalidator = useRevalidator();
  // Known only in the browser: the server's render offers nothing it cannot do.
  const [state, setState] = useState<PushState>("unsupported");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  useEffect(() => setState(pushState()), []);

  const subscribe = async () => {
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    const failed = await subscribeThisDevice(pushKey);
    setState(pushState());
    setBusy(false);
    if (failed) setError(failed);
    else setNotice("This device will be notified.");
    revalidator.revalidate();
  };

  return (
    <div className="notify-devices">
      <h3>Devices</h3>
      {state === "unsupported" ? (
        <p className="fine-print">This browser cannot show notifications from websites.</p>
      ) : (
        <button type="button" className="button" onClick={subscribe} disabled={busy}>
          {busy ? "Setting up…" : "Notify me on this device"}
        </button>
      )}
      {state === "denied" && !error ? (
        <p className="fine-print">
          Notifications are blocked for this site. Allow them in your browser's site settings to use this device.
        </p>
      ) : null}
      <FormOutcome notice={notice} error={error} />
      {settings.devices.length === 0 ? (
        <p>No device is notified yet.</p>
      ) : (
        <ul className="notify-device-list" aria-label="Notified devices">
          {settings.devices.map((device) => (
            <DeviceRow key={device.id} device={device} />
          ))}
        </ul>
      )}
    </div>
  );
}

function DeviceRow({ device }: { device: NotifySettingsView["devices"][number] }) {
  const revalidator = useRevalidator();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const remove = async () => {
    setBusy(true);
    setError(await postNotifications({ action: "remove", id: device.id }));
    setBusy(false);
    revalidator.revalidate();
  };
  return (
    <li className="notify-device">
      <div>
        <strong>{device.device}</strong>
        <p className="fine-print">
          Added <LocalTime value={device.createdAt} style="date" />
          {" · "}
          {device.lastUsedAt ? (
            <>
              last notified <LocalTime value={device.lastUsedAt} />
            </>
          ) : (
            "not notified yet"
          )}
        </p>
      </div>
      <button
        type="button"
        className="button small"
        onClick={remove}
        disabled={busy}
        aria-label={`Remove ${device.device}, added ${new Date(device.createdAt).toISOString().slice(0, 10)}`}
      >
        {busy ? "Removing…" : "Remove"}
      </button>
      <FormOutcome error={error} />
    </li>
  );
}

function Choices({ settings }: { settings: NotifySettingsView }) {
  const id = useId();
  const revalidator = useRevalidator();
  const [preview, setPreview] = useState(settings.preview);
  const [email, setEmail] = useState(settings.email);
  const [error, setError] = useState<string>();
  useEffect(() => setPreview(settings.preview), [settings.preview]);
  useEffect(() => setEmail(settings.email), [settings.email]);
  const save = async (change: { preview?: boolean; email?: boolean }) => {
    setError(await postNotifications({ action: "preferences", ...change }));
    revalidator.revalidate();
  };
  return (
    <fieldset className="notify-choices">
      <legend>What you're told</legend>
      <label className="check">
        <input
          type="checkbox"
          checked={preview}
          aria-describedby={`${id}-preview`}
          onChange={(event) => {
            setPreview(event.currentTarget.checked);
            void save({ preview: event.currentTarget.checked });
          }}
        />
        <span>Show the reply's first words in notifications</span>
      </label>
      <p id={`${id}-preview`} className="fine-print">
        Anyone who can see your lock screen or inbox could read them.
      </p>
      {settings.emailAvailable ? (
        <>
          <label className="check">
            <input
              type="checkbox"
              checked={email}
              aria-describedby={`${id}-email`}
              onChange={(event) => {
                setEmail(event.currentTarget.checked);
                void save({ email: event.currentTarget.checked });
              }}
            />
            <span>Email me when a long reply finishes</span>
          </label>
          <p id={`${id}-email`} className="fine-print">
            For replies that take more than {settings.emailAfterSeconds} seconds, when no device above is notified.
          </p>
        </>
      ) : null}
      <FormOutcome error={error} />
    </fieldset>
  );
}

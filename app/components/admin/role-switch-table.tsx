import { Form, useNavigation } from "@remix-run/react";
import { roleName } from "~/components/admin/roles";
import { FormOutcome } from "~/components/form-outcome";
import { LocalTime } from "~/components/time/local-time";
import type { RoleSwitchRow } from "~/data/role-switches.server";
import { NO_ROLE_KEY } from "~/settings/role-settings";

/**
 * A feature the admins switch per role (docs/decisions/100, 105: /admin/api,
 * /admin/memory): the roles with their state and who set it, a Turn on / Turn
 * off button each, and a field for a role not listed. Each form posts roleKey
 * and enabled ("on" or "off") to the page's own action.
 */
export interface RoleSwitchFeature {
  /** What is switched, as the column's heading: "API access", "Memory". */
  label: string;
  /** The same within a sentence, as the buttons' names say it: "API access", "memory". */
  inText: string;
  /** The operator's variable a role never switched follows: "API_ROLES". */
  variable: string;
}

export function RoleSwitchTable({
  feature,
  rows,
  result,
}: {
  feature: RoleSwitchFeature;
  rows: RoleSwitchRow[];
  result: { notice: string } | { error: string | undefined } | undefined;
}) {
  return (
    <>
      <FormOutcome
        notice={result && "notice" in result ? result.notice : undefined}
        error={result && "error" in result ? result.error : undefined}
      />
      <div className="table-scroll" tabIndex={0} role="region" aria-label={`${feature.label} per role`}>
        <table className="admin-table">
          <thead>
            <tr>
              <th scope="col">Role</th>
              <th scope="col">{feature.label}</th>
              <th scope="col">Set by</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <SwitchRow key={row.roleKey} row={row} feature={feature} />
            ))}
          </tbody>
        </table>
      </div>
      <OtherRoleForm />
    </>
  );
}

/** How the page's notices name a role. */
export function switchedRoleName(roleKey: string): string {
  return roleKey === NO_ROLE_KEY ? "users without a role" : roleName(roleKey);
}

function SwitchRow({ row, feature }: { row: RoleSwitchRow; feature: RoleSwitchFeature }) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("roleKey") === row.roleKey;
  const name = switchedRoleName(row.roleKey);
  return (
    <tr>
      <th scope="row">
        {name} <span className="muted">({row.roleKey})</span>
      </th>
      <td>{row.enabled ? "On" : "Off"}</td>
      <td>
        {row.chosen ? (
          <>
            {row.chosen.by}, <LocalTime value={row.chosen.at} />
          </>
        ) : (
          <>
            {feature.variable} (default: {row.byDefault ? "on" : "off"})
          </>
        )}
      </td>
      <td>
        <Form method="post">
          <input type="hidden" name="roleKey" value={row.roleKey} />
          <input type="hidden" name="enabled" value={row.enabled ? "off" : "on"} />
          <button
            type="submit"
            className="button"
            disabled={busy}
            aria-label={`${row.enabled ? "Turn off" : "Turn on"} ${feature.inText} for ${name}`}
          >
            {row.enabled ? "Turn off" : "Turn on"}
          </button>
        </Form>
      </td>
    </tr>
  );
}

/** A role the table does not list (one set by hand on some users, say): switched by its name. */
function OtherRoleForm() {
  return (
    <Form method="post" className="admin-role-switch-other">
      <h2>Another role</h2>
      <p className="muted">For a role not listed above, as it is written on the users who have it.</p>
      <label>
        Role <input name="roleKey" required pattern="[a-z0-9][a-z0-9_\-]{0,31}" autoComplete="off" />
      </label>{" "}
      <button type="submit" className="button" name="enabled" value="on">
        Turn on
      </button>{" "}
      <button type="submit" className="button" name="enabled" value="off">
        Turn off
      </button>
    </Form>
  );
}

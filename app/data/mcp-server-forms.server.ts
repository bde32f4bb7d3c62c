import { z } from "zod";
import { APPROVAL_POLICIES } from "~/conversation/tool-approval";
import { ADMIN_KEY, NO_ROLE_KEY, OTHER_ROLES_KEY } from "~/settings/role-settings";

/** The Tools area's server forms (docs/decisions/090), read into what app/data/mcp-servers.server.ts takes. */

const MAX_NAME = 80;
const MAX_URL = 2_000;
const MAX_HEADER_VALUE = 4_000;
// RFC 9110 token characters: what a header name may be.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ROLE_WORD = /^[\p{L}\p{N}_.-]{1,40}$/u;

/** The role choices the forms offer besides custom roles. */
export const ROLE_CHOICES = [OTHER_ROLES_KEY, NO_ROLE_KEY, "premium", ADMIN_KEY] as const;

const list = z.preprocess(
  (value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]),
  z.array(z.string()),
);

/** Checked roles plus the custom ones typed in, "*" alone when every role is chosen. */
const rolesFields = {
  roles: list,
  otherRoles: z.string().max(400).optional().default(""),
};

function rolesOf(fields: { roles: string[]; otherRoles: string }, ctx: z.RefinementCtx): string[] {
  const typed = fields.otherRoles
    .split(",")
    .map((role) => role.trim())
    .filter(Boolean);
  const bad = typed.find((role) => !ROLE_WORD.test(role));
  if (bad) {
    ctx.addIssue({
      code: "custom",
      path: ["otherRoles"],
      message: `“${bad}” is not a role name (letters, digits, _ . -).`,
    });
    return [];
  }
  const roles = [...new Set([...fields.roles.filter((role) => role !== ""), ...typed])];
  if (roles.length === 0) {
    ctx.addIssue({ code: "custom", path: ["roles"], message: "Choose at least one role that may use it." });
    return [];
  }
  return roles.includes(OTHER_ROLES_KEY) ? [OTHER_ROLES_KEY] : roles;
}

const serverUrl = z
  .string()
  .trim()
  .min(1, "Enter the server's address.")
  .max(MAX_URL, "That address is too long.")
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === "http:" || url.protocol === "https:") && url.username === "" && url.password === "";
    } catch {
      return false;
    }
  }, "Enter an http:// or https:// address, without a user name or password in it (use a header for secrets).");

/** The fields of a new server, shared or the user's own: its name, address and how it is signed in to. */
const newServerFields = {
  intent: z.literal("add-server"),
  name: z.string().trim().min(1, "Give the server a name.").max(MAX_NAME, `At most ${MAX_NAME} characters.`),
  url: serverUrl,
  auth: z.enum(["none", "header", "oauth"], { message: "Choose how the server is signed in to." }),
  headerName: z.string().trim().max(100).optional().default(""),
  headerValue: z.string().max(MAX_HEADER_VALUE, "That header value is too long.").optional().default(""),
  oauthClientId: z.string().trim().max(500, "That client ID is too long.").optional().default(""),
  oauthClientSecret: z.string().max(MAX_HEADER_VALUE, "That client secret is too long.").optional().default(""),
};

type NewServerFields = z.output<z.ZodObject<typeof newServerFields>>;

/** The server's name, address, and its header or OAuth client as app/data/mcp-servers.server.ts takes them. */
function newServerOf(fields: NewServerFields, ctx: z.RefinementCtx) {
  if (fields.auth === "header") {
    if (!HEADER_NAME.test(fields.headerName)) {
      ctx.addIssue({ code: "custom", path: ["headerName"], message: "Enter a header name, e.g. Authorization." });
    }
    if (fields.headerValue.trim() === "") {
      ctx.addIssue({ code: "custom", path: ["headerValue"], message: "Enter the header's value." });
    }
  }
  if (fields.auth === "oauth" && fields.oauthClientSecret.trim() !== "" && fields.oauthClientId === "") {
    ctx.addIssue({ code: "custom", path: ["oauthClientId"], message: "Enter the client ID the secret belongs to." });
  }
  const header = fields.auth === "header" ? { name: fields.headerName, value: fields.headerValue.trim() } : undefined;
  const oauth =
    fields.auth === "oauth"
      ? {
          ...(fields.oauthClientId ? { clientId: fields.oauthClientId } : {}),
          ...(fields.oauthClientSecret.trim() ? { clientSecret: fields.oauthClientSecret.trim() } : {}),
        }
      : undefined;
  return { name: fields.name, url: fields.url, header, oauth };
}

/** An admin's shared server: the server and the roles that may use it. */
export const addServerSchema = z.object({ ...newServerFields, ...rolesFields }).transform((fields, ctx) => {
  const roles = rolesOf(fields, ctx);
  return { ...newServerOf(fields, ctx), roles };
});

/** A user's own server (docs/decisions/094): the same form without roles, since only they use it. */
export const addOwnServerSchema = z.object(newServerFields).transform(newServerOf);

export const serverRolesSchema = z
  .object({ intent: z.literal("set-roles"), serverId: z.uuid(), ...rolesFields })
  .transform((fields, ctx) => ({ serverId: fields.serverId, roles: rolesOf(fields, ctx) }));

/** A tool narrowed to some of the server's roles, or following the server again ("follow"). */
export const toolRolesSchema = z
  .object({
    intent: z.literal("set-tool-roles"),
    serverId: z.uuid(),
    tool: z.string().min(1).max(200),
    follow: z.enum(["yes", "no"]).optional().default("no"),
    ...rolesFields,
  })
  .transform((fields, ctx) => ({
    serverId: fields.serverId,
    tool: fields.tool,
    roles: fields.follow === "yes" ? null : rolesOf(fields, ctx),
  }));

export const serverIdSchema = z.object({
  intent: z.enum(["refresh", "delete-server"]),
  serverId: z.uuid({ message: "There is no such server." }),
  confirm: z.string().optional(),
});

export const mcpSwitchSchema = z.object({
  intent: z.literal("set-mcp-tool"),
  serverId: z.uuid({ message: "There is no such server." }),
  tool: z.string().min(1).max(200),
  enabled: z.enum(["on", "off"]),
});

/** An admin's loosest approval for a tool ("default": from the tool's hints again). */
export const toolPolicySchema = z.object({
  intent: z.literal("set-tool-policy"),
  serverId: z.uuid({ message: "There is no such server." }),
  tool: z.string().min(1).max(200),
  policy: z.enum([...APPROVAL_POLICIES, "default"], { message: "Choose when the tool asks first." }),
});

/** A user's own approval for a tool, within the admin's ("default": the admin's). */
export const userApprovalSchema = z.object({
  intent: z.literal("set-mcp-approval"),
  serverId: z.uuid({ message: "There is no such server." }),
  tool: z.string().min(1).max(200),
  approval: z.enum([...APPROVAL_POLICIES, "default"], { message: "Choose when the tool asks first." }),
});

import { lookupRole, roleKey } from "~/settings/role-settings";
import { getConfig } from "~/config.server";

/** A role's attachment limits (ATTACHMENT_MAX_MB, ATTACHMENTS_PER_MESSAGE, ATTACHMENT_STORAGE_MB). */
export interface AttachmentLimits {
  maxFileBytes: number;
  perMessage: number;
  storageBytes: number;
}

const MB = 1024 * 1024;

export function attachmentLimitsFor(who: { role: string; isAdmin: boolean }): AttachmentLimits {
  const { maxMb, perMessage, storageMb } = getConfig().attachments;
  const key = roleKey(who);
  // Never undefined: each map keeps its `*` default (app/settings/role-settings.ts).
  return {
    maxFileBytes: (lookupRole(maxMb, key) ?? 20) * MB,
    perMessage: lookupRole(perMessage, key) ?? 10,
    storageBytes: (lookupRole(storageMb, key) ?? 500) * MB,
  };
}

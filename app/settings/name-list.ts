/**
 * `id=Name,id2=Name2` → a map from id to name: the variables that give things
 * readable names (AUTH_PROVIDER_NAMES, LLM_MODEL_NAMES). Each entry splits at
 * its first "=", so ids may hold ":" or "/" and names anything but a comma.
 * Throws with `form` (e.g. `provider=Name (e.g. oidc.acme=Acme SSO)`) for an
 * entry that is not one, and for an id named twice or a name too long.
 */
export function parseNameList(
  value: string | undefined,
  { form, maxName }: { form: string; maxName: number },
): Map<string, string> {
  const names = new Map<string, string>();
  for (const entry of (value ?? "").split(",")) {
    if (entry.trim() === "") continue;
    const equals = entry.indexOf("=");
    const id = equals < 0 ? "" : entry.slice(0, equals).trim();
    const name = equals < 0 ? "" : entry.slice(equals + 1).trim();
    if (!id || !name) throw new Error(`"${entry.trim()}" is not ${form}.`);
    if (names.has(id)) throw new Error(`${id} is named twice.`);
    if (name.length > maxName) throw new Error(`the name for ${id} is longer than ${maxName} characters.`);
    names.set(id, name);
  }
  return names;
}

/** What the catalogue page shows of each tool, and how search and the category filter pick them. */

export interface PromptToolSummary {
  id: string;
  name: string;
  description: string;
  category: string;
  builtIn: boolean;
  enabled: boolean;
  /** A built-in tool an admin changed (admins see it marked, and may reset it). */
  edited?: boolean;
}

export interface FunctionToolSummary {
  id: string;
  name: string;
  description: string;
  /** This user's choice; null for a signed-out visitor. */
  enabled: boolean | null;
}

/** The category the assistant's function tools are filed under in the filter. */
export const FUNCTIONS_CATEGORY = "Assistant functions";

export const SEARCH_MAX_LENGTH = 100;

export interface CatalogueFilters {
  q: string;
  category: string;
}

/**
 * Every word typed must appear in the name, description or category (any
 * case); a plural finds its singular ("units" finds "Unit converter").
 */
export function matchesSearch(tool: { name: string; description: string; category?: string }, q: string): boolean {
  const haystack = `${tool.name} ${tool.description} ${tool.category ?? ""}`.toLowerCase();
  return q
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every(
      (word) =>
        haystack.includes(word) || (word.length > 3 && word.endsWith("s") && haystack.includes(word.slice(0, -1))),
    );
}

export function filterCatalogue(
  prompts: PromptToolSummary[],
  functions: FunctionToolSummary[],
  { q, category }: CatalogueFilters,
) {
  const inCategory = (name: string) => category === "" || category.toLowerCase() === name.toLowerCase();
  return {
    prompts: prompts.filter((tool) => inCategory(tool.category) && matchesSearch(tool, q)),
    functions: inCategory(FUNCTIONS_CATEGORY)
      ? functions.filter((tool) => matchesSearch({ ...tool, category: FUNCTIONS_CATEGORY }, q))
      : [],
  };
}

/** Categories in the order people meet them: the prompt tools' (A–Z), then the functions. */
export function categoriesOf(prompts: PromptToolSummary[]): string[] {
  const seen = new Map<string, string>();
  for (const tool of prompts)
    if (!seen.has(tool.category.toLowerCase())) seen.set(tool.category.toLowerCase(), tool.category);
  return [...[...seen.values()].sort((a, b) => a.localeCompare(b)), FUNCTIONS_CATEGORY];
}

import { Form, Link, useSubmit } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { SEARCH_MAX_LENGTH, type CatalogueFilters } from "~/data/prompt-tools/catalogue";

/**
 * Search and category filter: a plain GET form (the filters live in the URL,
 * so a filtered view can be shared or bookmarked); with JavaScript it applies
 * as the visitor types or picks.
 */
export function ToolFilters({ filters, categories }: { filters: CatalogueFilters; categories: string[] }) {
  const submit = useSubmit();
  const search = useRef<HTMLInputElement>(null);
  const category = useRef<HTMLSelectElement>(null);
  const filtered = filters.q !== "" || filters.category !== "";
  // The fields follow the URL when it changes otherwise (Clear filters, Back),
  // but never under the visitor's fingers while they type.
  useEffect(() => {
    if (search.current && document.activeElement !== search.current) search.current.value = filters.q;
    if (category.current) category.current.value = filters.category;
  }, [filters.q, filters.category]);
  return (
    <Form
      method="get"
      role="search"
      aria-label="Tools"
      className="tool-filters"
      onChange={(event) => submit(event.currentTarget, { replace: true, preventScrollReset: true })}
    >
      <label>
        Search tools
        <input
          ref={search}
          type="search"
          name="q"
          defaultValue={filters.q}
          maxLength={SEARCH_MAX_LENGTH}
          placeholder="e.g. email, code, units"
        />
      </label>
      <label>
        Category
        <select ref={category} name="category" defaultValue={filters.category}>
          <option value="">All categories</option>
          {categories.map((category) => (
            <option key={category} value={category}>
              {category}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="button">
        Search
      </button>
      {filtered ? (
        <Link to="/tools" replace preventScrollReset>
          Clear filters
        </Link>
      ) : null}
    </Form>
  );
}

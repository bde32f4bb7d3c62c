import { withDatabase } from "~/http/with-database.server";
import { accountNames, type AccountName } from "./account-emails.server";
import { ratedModels, recentFeedback, type FeedbackFilters, type FeedbackRow } from "./feedback.server";

/**
 * /admin/feedback: the latest ratings, filtered by rating and model from the
 * page's address (a GET form, so each view is a link and works without
 * JavaScript), each with who gave it by email.
 */

export type RatingChoice = "all" | "up" | "down";

export interface FeedbackQuery {
  rating: RatingChoice;
  /** "" for every model. */
  model: string;
}

export interface FeedbackDesk {
  query: FeedbackQuery;
  /** What in the address could not be used, said plainly; the rest still applies. */
  problems: string[];
  models: string[];
  rows: Array<FeedbackRow & { rater: AccountName }>;
}

const MAX_MODEL_LENGTH = 200;

/** The filters in the page's address; a value that means nothing is named in `problems` and ignored. */
export function feedbackQueryFrom(url: URL): { query: FeedbackQuery; problems: string[] } {
  const problems: string[] = [];
  const rawRating = url.searchParams.get("rating") ?? "all";
  const rating: RatingChoice = rawRating === "up" || rawRating === "down" || rawRating === "all" ? rawRating : "all";
  if (rating !== rawRating) problems.push(`"${rawRating.slice(0, 40)}" is not a rating; showing every rating.`);
  let model = (url.searchParams.get("model") ?? "").trim();
  if (model.length > MAX_MODEL_LENGTH) {
    problems.push("That model name is too long to be one; showing every model.");
    model = "";
  }
  return { query: { rating, model }, problems };
}

function filtersOf(query: FeedbackQuery): FeedbackFilters {
  return {
    rating: query.rating === "up" ? 1 : query.rating === "down" ? -1 : undefined,
    model: query.model || undefined,
  };
}

/** The page's data: the ratings from PostgreSQL, then their raters' emails from Firebase Auth. */
export async function feedbackDesk(url: URL): Promise<FeedbackDesk> {
  const { query, problems } = feedbackQueryFrom(url);
  const { rows, models } = await withDatabase("reading reply feedback", async (db) => {
    const [found, rated] = await Promise.all([recentFeedback(db, filtersOf(query)), ratedModels(db)]);
    return { rows: found, models: rated };
  });
  const names = await accountNames(rows.map((row) => row.uid));
  return {
    query,
    problems,
    models,
    rows: rows.map((row) => ({ ...row, rater: names.get(row.uid) ?? { kind: "unknown" } })),
  };
}

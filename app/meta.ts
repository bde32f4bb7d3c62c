/** Document titles: "Nuvara²" for the home page, "Page · Nuvara²" elsewhere. */
export function pageTitle(page?: string) {
  return [{ title: page ? `${page} · Nuvara²` : "Nuvara²" }];
}

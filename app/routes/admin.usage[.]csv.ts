import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireAdmin } from "~/auth/session.server";
import { emailsOf, usageCsv, usageReport } from "~/data/admin-usage.server";
import { withDatabase } from "~/http/with-database.server";

/** GET /admin/usage.csv: the usage page's tables as one CSV download (admins only, read fresh). */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const report = await withDatabase("reading usage", (db) => usageReport(db));
  const emails = await emailsOf([...new Set([...report.top, ...report.keys].map((row) => row.uid))]);
  return new Response(usageCsv(report, emails), {
    headers: {
      "Cache-Control": "no-store",
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="nuvara-usage-${report.from}-to-${report.to}.csv"`,
    },
  });
}

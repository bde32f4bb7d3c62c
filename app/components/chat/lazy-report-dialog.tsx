import { lazy, Suspense } from "react";
import { useOpenedOnce } from "./opened-once";

// Loaded when a reply is first reported: not part of the page's first load (ADR 051).
const ReportDialog = lazy(() => import("./report-dialog").then((module) => ({ default: module.ReportDialog })));

/** The report dialog for `messageId` (null: closed), mounted from the first report on. */
export function LazyReportDialog({ messageId, onClose }: { messageId: string | null; onClose: () => void }) {
  const reportLoaded = useOpenedOnce(messageId !== null);
  return reportLoaded ? (
    <Suspense fallback={null}>
      <ReportDialog messageId={messageId} onClose={onClose} />
    </Suspense>
  ) : null;
}

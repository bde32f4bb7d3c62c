import { ChatErrorNotice } from "./chat-error-notice";
import { ChatHeader } from "./chat-header";
import { DropOverlay, ModelBanner, ReplyAnnouncement, TemporaryBanner } from "./chat-notices";
import type { ChatViewProps } from "./chat-view-types";
import { Composer } from "./composer";
import { ComposerFooter } from "./composer-footer";
import { LazyReportDialog } from "./lazy-report-dialog";
import { MessageList } from "./message-list";
import { Transcript } from "./transcript";
import { ToolMenu } from "./tool-menu";
import { useAssistantData } from "./assistant-data";
import { useChatController } from "./use-chat-controller";

export type { ChatViewProps, ModelChoice, QuotaView, RunningReply } from "./chat-view-types";

/** One conversation: its header (title, model, export), the transcript, errors with Retry, and the composer. */
export function ChatView(props: ChatViewProps) {
  const { chatId, isNew, models } = props;
  const chat = useChatController(props);
  const { messages, status, busy } = chat.conversation;
  const { model, chooseModel, demoIds } = chat.modelChoice;
  const { chatTools } = useAssistantData();
  return (
    <section
      className={`chat${chat.drop.dragging ? " dropping" : ""}`}
      aria-labelledby="chat-title"
      {...chat.drop.handlers}
    >
      <DropOverlay shown={chat.drop.dragging} />
      <ChatHeader
        chatId={chatId}
        isNew={isNew}
        title={props.title}
        temporary={Boolean(props.temporary)}
        temporarySwitch={Boolean(props.temporarySwitch)}
        customInstructions={props.customInstructions}
        toolInstructions={props.toolInstructions}
        tool={props.tool ?? null}
        project={props.project ?? null}
        picker={{ models, model, onChoose: chooseModel, busy }}
      />
      {props.temporary ? <TemporaryBanner /> : null}
      <ModelBanner noModel={models.length === 0} demo={demoIds.has(model)} />
      <Transcript follow={chat.follow} busy={busy} onEscape={chat.stopOnEscape}>
        <MessageList
          messages={messages}
          status={status}
          busy={busy}
          startDisabled={busy || chat.blockedReason !== null}
          toolName={props.tool?.name ?? null}
          onStart={chat.send}
          demoIds={demoIds}
          toolNames={props.toolNames}
          actionsFor={chat.actionsFor}
        />
        <ChatErrorNotice
          error={chat.shownError}
          chatId={chatId}
          upgradeUrl={props.quota.upgradeUrl}
          onRetry={chat.retry}
          onContinue={chat.continueReply}
        />
      </Transcript>
      <Composer
        files={chat.uploads.files}
        onAttach={chat.uploads.add}
        onRemoveFile={chat.uploads.remove}
        fileProblem={chat.fileProblem}
        value={chat.draft}
        onChange={chat.setDraft}
        onSend={chat.send}
        onStop={chat.stopReply}
        onEscape={chat.stopOnEscape}
        busy={busy}
        blockedReason={chat.blockedReason}
        tools={
          <ToolMenu
            groups={chatTools}
            off={chat.toolChoice.off}
            onChange={chat.toolChoice.setTool}
            disabled={!chat.hydrated}
          />
        }
        footer={
          <ComposerFooter
            restoredNotice={chat.restoredNotice}
            quota={props.quota}
            timeZone={chat.timeZone}
            refusedByLimit={chat.shownError?.quotaExhausted === true}
          />
        }
      />
      <LazyReportDialog messageId={chat.report.messageId} onClose={chat.report.close} />
      <ReplyAnnouncement text={chat.announcement} />
    </section>
  );
}

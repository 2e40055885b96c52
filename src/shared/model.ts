/**
 * The data model every side shares. Plain JSON-serialisable types only; imports nothing.
 * Field names follow CLI.md, whose JSON shapes are a public contract.
 */

export type Role = 'user' | 'assistant' | 'tool' | 'system';
export const ROLES: readonly Role[] = ['user', 'assistant', 'tool', 'system'];

/** A 40-hex commit id of the shadow repository. */
export type Hash = string;

/** "working" names the files as they are on disk now. */
export type DiffSide = Hash | 'working';

/** The history of a folder that is gone: perhaps the one this folder was before it was moved or renamed. */
export interface MovedHistory {
  /** The folder's path when it was recorded. */
  root: string;
  sessions: number;
}

/** What `retrace move` (and moveHistory) did. */
export interface MoveResult {
  from: string;
  to: string;
  /** How many sessions came along. */
  sessions: number;
}

export interface WorkspaceInfo {
  /** Collision-resistant id derived from the real path. */
  id: string;
  /** Real, absolute path of the folder. */
  root: string;
  /** Folder name, for titles. */
  name: string;
}

export interface CheckpointStats {
  /** Files changed relative to the previous checkpoint. */
  files: number;
  insertions: number;
  deletions: number;
}

export interface ChangeCounts {
  added: number;
  modified: number;
  deleted: number;
}

/** A file the snapshot saw but did not store. */
export interface NotCaptured {
  path: string;
  /** unsupported-name: the name is not valid UTF-8 (such files are reported and never touched by a restore). */
  /** name-too-long: the full path is longer than the system allows (PATH_MAX); `path` may be its folder. */
  reason: 'too-large' | 'unreadable' | 'vanished' | 'unsupported-name' | 'name-too-long';
  size?: number;
}

export interface Message {
  id: string;
  /** ISO 8601. */
  ts: string;
  role: Role;
  text: string;
  /** Commit hash of the checkpoint this message carries, or null. */
  hash: Hash | null;
  /** True when a conversation restore rewound past this message. */
  hidden: boolean;
  /** For checkpoint messages: what changed since the previous checkpoint. */
  stats?: CheckpointStats;
  /** Importers and hooks may say more (tool name, file, command, reconstruction notes). */
  meta?: MessageMeta;
  /** Checkpoint messages: the label the user gave the checkpoint (`retrace label`), if any. */
  label?: string;
}

export interface MessageMeta {
  tool?: string;
  file?: string;
  command?: string;
  /** Source-specific id (Claude Code uuid, Cline ts). */
  sourceId?: string;
  /** For imported checkpoints: which files were rebuilt from the transcript and which could not be. */
  reconstructed?: { files: string[]; missing: string[] };
  /** The checkpoint exists in the source but could not be brought in (e.g. Cline repo missing). */
  checkpointUnavailable?: boolean;
  /** Saved while still streaming, with nothing after it: the text may be cut off (Cline's `partial`). */
  partial?: boolean;
  /** The model's reasoning, which the agent's own chat shows apart from its replies (Cline). */
  reasoning?: boolean;
  notCaptured?: NotCaptured[];
  /** Which model wrote it, as the transcript names it. */
  model?: string;
  /** The tokens of the model response it came from, where the transcript records them. */
  usage?: TokenUsage;
  /** What the response cost in US dollars, where the transcript records it (older Claude Code). */
  costUsd?: number;
  /** The model's thinking behind this reply (Claude Code thinking blocks); long texts are cut, saying so. */
  thinking?: string;
  /**
   * Tool calls with what they were given and gave back: on a tool message, the one call whose result it is; on an
   * assistant message, calls of the response that have no result message of their own.
   */
  toolCalls?: ToolCallDetail[];
}

/** Token counts as the agent recorded them; a count it did not record is absent. */
export interface TokenUsage {
  input?: number;
  output?: number;
  /** Input tokens read from the prompt cache. */
  cacheRead?: number;
  /** Input tokens written to the prompt cache (Claude). */
  cacheWrite?: number;
  /** Reasoning ("thoughts") tokens (Codex, Gemini). */
  reasoning?: number;
  total?: number;
}

/** One tool call as the transcript records it. Texts longer than the importer's cap end with a note saying so. */
export interface ToolCallDetail {
  /** The agent's call id (Claude Code tool_use_id, Codex call_id, Gemini tool call id). */
  id?: string;
  name: string;
  /** What it was given: a shell command, or the arguments as indented JSON (an edit's texts go to `patch`). */
  input?: string;
  /** A file change as diff lines ("@@ …", "-old", "+new", " context"), or the agent's own patch text. */
  patch?: string;
  /** What it gave back: what a command printed, a tool's answer. */
  output?: string;
  isError?: boolean;
  exitCode?: number;
}

export type SessionSource = 'cli' | 'claude-code' | 'cline' | 'codex' | 'gemini' | 'watch' | 'demo';

/** Which agent a session came from, as `retrace sessions` and the session list name it (CLI.md). */
export type AgentName = 'claude-code' | 'codex' | 'gemini' | 'cline' | 'cli' | 'watch';

export function agentOf(source: SessionSource): AgentName {
  return source === 'demo' ? 'cli' : source;
}

export interface SessionSummary {
  id: string;
  title: string;
  source: SessionSource;
  agent: AgentName;
  createdAt: string;
  updatedAt: string;
  /** Visible messages. */
  messages: number;
  /** Visible checkpoint messages. */
  checkpoints: number;
  /** Pulled from a git remote (`retrace pull`): read-only, recorded by someone else. */
  readOnly?: true;
  /** Pulled sessions: who recorded it ("Name <email>", or the account or host), as the pusher's git config said. */
  recordedBy?: string;
  /** What forgetting it would free (StorageReport); set by `retrace sessions`, not by every listing. */
  bytes?: number;
}

export type FileStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'type-changed';

export interface FileChange {
  path: string;
  oldPath?: string;
  status: FileStatus;
  binary: boolean;
  insertions: number;
  deletions: number;
  /** Compared with the files now: the file is there but was not captured (too large, unreadable), so its lines are not counted. */
  notCaptured?: NotCaptured['reason'];
}

export interface DiffSummary {
  /** null: the empty tree (a session's first checkpoint compared with nothing). */
  from: Hash | null;
  to: DiffSide;
  files: FileChange[];
}

export interface FileContents {
  path: string;
  binary: boolean;
  /** null where the file does not exist on that side, or is binary / too large to inline. */
  before: string | null;
  after: string | null;
  /** Set when a side is larger than the inline limit; the UI shows a notice instead of the editor. */
  tooLarge?: boolean;
}

/** The pictures the Image diff shows, as sniffed from their bytes (shared/imageType.ts). */
export type ImageMime = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' | 'image/svg+xml';

/** One side of a file shown as a picture (the Image diff). */
export interface ImageSide {
  /** Sniffed from the bytes; null when they are not a PNG, JPEG, GIF, WebP or SVG. */
  mime: ImageMime | null;
  /** Size in bytes. */
  size: number;
  /** The bytes, base64; absent when not an image or over the image limit. */
  base64?: string;
  tooLarge?: boolean;
}

/** A file's two sides as pictures (null where the file does not exist on that side). */
export interface ImageSides {
  path: string;
  before: ImageSide | null;
  after: ImageSide | null;
}

export type RestoreMode = 'code' | 'conversation' | 'both';

export interface RestoreTarget {
  hash: Hash;
  message: string;
  session: string;
}

export interface RestoreResult {
  restore: string;
  mode: RestoreMode;
  target: RestoreTarget;
  /** Safety checkpoint of the state before the restore (null for conversation-only and dry runs). */
  safety: Hash | null;
  /** Paths written or deleted (or, for a dry run, that would be). */
  changed: string[];
  /** Messages hidden by the conversation part. */
  hidden: number;
  dryRun: boolean;
  /** Claude Code sessions: the forked transcript's resume command. */
  resume?: { sessionId: string; command: string; transcript: string };
  /** Paths a code restore left alone, and why (an excluded file in the way, a symlinked folder). Absent when none. */
  skipped?: { path: string; reason: string }[];
}

export interface UndoResult {
  undone: string;
  restore: string;
  changed: string[];
}

/**
 * One line of `retrace restores`: a restore, revert or undo from the ledger, newest first. The CLI prints the
 * CLI.md fields (restore, mode, target, ts, changed, undone); the app also gets the optional ones.
 */
/** `retrace revert`: one step taken back from the files as they are now, later changes kept (CLI.md). */
export interface RevertResult {
  restore: string;
  mode: 'revert';
  target: RestoreTarget;
  /** Safety checkpoint of the files before (null for a dry run, or when nothing changed). */
  safety: Hash | null;
  /** Paths written or deleted (or, for a dry run, that would be). */
  changed: string[];
  /** Files where a later change touched the same lines: git's conflicted regions per file. */
  conflicts: { path: string; hunks: number }[];
  dryRun: boolean;
  /**
   * Dry runs for the app: the files now and the merged result as two (unreferenced) commits, so the preview
   * shows each file's result as a diff through the ordinary contents call, and the file list between them.
   */
  preview?: { from: Hash; to: Hash; files: FileChange[] };
}

/** A hunk of one file's diff put to the other side ("restore") or taken back from the files now ("revert"). */
export interface HunkResult {
  restore: string;
  mode: 'code' | 'revert';
  target: RestoreTarget;
  safety: Hash | null;
  changed: string[];
}

export interface RestoreEntry {
  restore: string;
  mode: RestoreMode | 'revert' | 'undo';
  target: RestoreTarget;
  ts: string;
  /** Files it changed on disk. */
  changed: number;
  /** A later undo, itself not undone, cancelled it. */
  undone: boolean;
  /** `retrace undo RID` would work now (not undone, no later entry in effect touched the same things). */
  undoable?: boolean;
  /** Undo entries: the entry this one undid (an undo of an undo is a redo). */
  undoOf?: string;
  /** Undo entries: the mode of the restore at the root of the chain (for words like "messages shown again"). */
  undoes?: RestoreMode | 'revert';
  /** Undo entries: true when this one re-applied that restore (it undid an undo). */
  redo?: boolean;
}

export interface RecoveryReport {
  ts: string;
  kind:
    | 'restore-rolled-back'
    | 'restore-rollback-unfinished'
    | 'checkpoint-ref-repaired'
    | 'stale-lock-removed'
    | 'git-lock-removed'
    | 'repository-repaired'
    | 'log-repaired';
  detail: string;
}

export interface LastRestore {
  restore: string;
  mode: RestoreMode | 'revert';
  ts: string;
  target: RestoreTarget;
  undoOf?: string;
}

export interface WorkspaceStatus {
  workspace: string;
  sessions: number;
  checkpoints: number;
  storageBytes: number;
  canUndo: boolean;
  lastRestore: LastRestore | null;
  recovered: RecoveryReport[];
  /** Repairs found needed but not done yet (another writer was busy): the next writing command does them. */
  pendingRepairs?: string[];
  /** Checkpoints hooks could not record, newest last (I10): never silence. */
  missed?: MissedCheckpoint[];
  /** Bytes of the compressed copies of imported transcripts kept (storage/archive.ts), beside storageBytes. */
  archiveBytes?: number;
}

/** A hook call that could not record its checkpoint (the writer lock stayed busy, git failed…). */
export interface MissedCheckpoint {
  ts: string;
  /** The agent's session, when the payload named one. */
  session: string | null;
  /** Why, in one line, starting with the error code ("E_LOCKED: …"). */
  reason: string;
  /** The hook event and tool ("PostToolUse Edit"), when known. */
  tool?: string;
}

export interface CheckpointRef {
  /** Index of the message in the full (visible or all) list the page was cut from. */
  index: number;
  messageId: string;
  hash: Hash;
}

export interface TimelinePage {
  session: string;
  /** Number of messages in the list (visible, or all with includeHidden). */
  total: number;
  offset: number;
  messages: Message[];
  /** Every checkpoint of the list, in order, for the scrubber (not only those of the page). */
  checkpoints: CheckpointRef[];
  /** Checkpoints hooks could not record in this session (I10), oldest first. */
  missed?: MissedCheckpoint[];
}

/** A session an agent recorded for this folder, as `retrace discover` lists it (CLI.md). */
export interface FoundSessionInfo {
  agent: Exclude<AgentName, 'cli' | 'watch'>;
  /** The transcript file (Cline: its task folder). */
  path: string;
  id: string;
  title: string;
  updatedAt: string;
  /** Already a session in Retrace. */
  imported: boolean;
  /** Imported, and the transcript went on since. */
  changed: boolean;
}

/** What importing one found session did (`retrace discover --import`, one entry). */
export interface FoundImportResult extends FoundSessionInfo {
  action: 'imported' | 'updated' | 'unchanged' | 'failed';
  error?: { code: string; message: string };
  messages?: number;
  checkpoints?: number;
}

/** The app's choices for one folder, kept in its workspace data folder. */
export interface FolderSettings {
  /** Opening the folder imports new and changed agent sessions without asking. */
  alwaysImport: boolean;
  /** "Record changes": a checkpoint into a `watch` session whenever file activity settles. */
  recordChanges: boolean;
  /**
   * Why "Record changes" is not recording: with recordChanges on, its last settle failed (it retries at the next);
   * off, it could not start (when the folder was opened with it left on, or when switched on), or it stopped
   * because the folder was deleted or replaced.
   */
  recordError?: { code: string; message: string };
}

export type RetraceEvent =
  | { type: 'sessions-changed'; workspace: string }
  /** An import of found sessions is under way: `done` of `total` finished, `title` is being imported now. */
  | { type: 'import-progress'; workspace: string; done: number; total: number; title: string | null }
  /** A folder's settings changed (in any window): "Record changes" is running or stopped, "Always import". */
  | { type: 'folder-settings'; workspace: string; settings: FolderSettings }
  | { type: 'messages-appended'; workspace: string; session: string }
  | { type: 'files-changed'; workspace: string }
  | { type: 'restored'; workspace: string; restore: string }
  /** Sent by the Electron host only: a native-menu action for the window's renderer to perform. */
  | { type: 'command'; command: AppCommand };

/** The actions the native menu can ask the renderer to perform (the renderer owns the selection). */
export type AppCommand =
  | 'previous-checkpoint'
  | 'next-checkpoint'
  | 'compare-step'
  | 'compare-since'
  | 'compare-pair'
  | 'toggle-inline'
  | 'toggle-rewound'
  | 'restore-code'
  | 'restore-conversation'
  | 'restore-both'
  | 'preview-restore'
  | 'undo-restore';

/** Where a line of `retrace blame` came from (CLI.md "Finding and attributing"). */
export type BlameOrigin = 'agent' | 'person' | 'baseline';

export interface BlameLine {
  /** 1-based line number in the file as it is now. */
  line: number;
  /** The checkpoint whose step last changed the line; null for baseline lines and lines changed since the last checkpoint. */
  hash: Hash | null;
  message: string | null;
  session: string | null;
  /** The agent whose step wrote the line (origin `agent` only). */
  agent: string | null;
  role: Role | null;
  origin: BlameOrigin;
}

export interface BlameResult {
  path: string;
  lines: BlameLine[];
}

/** One message found by `retrace search` (CLI.md "Finding and attributing"); optional fields are additive. */
export interface SearchHit {
  session: string;
  message: string;
  ts: string;
  role: Role;
  /** The text around the first match, on one line (the start of the text when only a path or label matched). */
  snippet: string;
  hash: Hash | null;
  /** The checkpoint's changed paths (against the previous checkpoint) that match the query. */
  paths: string[];
  /** Rewound by a conversation restore: found, and said so. */
  hidden?: true;
  label?: string;
  /** Where the message sits in its session's list (visible messages, or all with includeHidden), as the timeline counts. */
  index?: number;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Every hit, of which `hits` holds the first `limit`. */
  total: number;
}

/** `retrace label`: the checkpoint and its label now (null: removed). */
export interface LabelResult {
  hash: Hash;
  message: string;
  session: string;
  label: string | null;
}

// ---------------------------------------------------------------------------------------------------------
// Keeping history within a budget (issue 14 item 5): `retrace gc`, `retrace forget`, the app's Storage dialog.

/** A workspace's storage budget; null = no limit of that kind. Persisted per workspace. */
export interface StorageBudget {
  maxBytes: number | null;
  keepDays: number | null;
}

/** One session's share of the storage, and why gc keeps it whatever its age (null: it may age out). */
export interface SessionStorage {
  id: string;
  title: string;
  agent: AgentName;
  updatedAt: string;
  /** What forgetting it would free: objects no other session or label reaches, its log, its archive. */
  bytes: number;
  /** Of those, the compressed copy of its imported transcript. */
  archiveBytes: number;
  kept: string | null;
}

export interface StorageReport {
  storageBytes: number;
  archiveBytes: number;
  budget: StorageBudget;
  /** Oldest activity first: the order gc removes them in. */
  sessions: SessionStorage[];
}

/** `retrace gc` / `retrace forget` (CLI.md: removed, storageBytes; the rest is additive). */
export interface GcResult {
  removed: string[];
  storageBytes: number;
  /** The sessions gc never removes, and why (labelled, being recorded now); empty for forget. */
  kept: { session: string; reason: string }[];
  /** False when the protected sessions alone exceed maxBytes. */
  underBudget: boolean;
  /** The budget gc applied (the saved one, with the flags given over it); absent for forget. */
  budget?: StorageBudget;
}

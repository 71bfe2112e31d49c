// A thin VS Code client for the intent-ls language server (`intent-ls serve`, stdio).
//
// Everything that governs edits lives in the server: this extension starts it where a
// workspace folder holds .orchestration/active_intents.yaml (or everywhere, when the user
// opts in), forwards the `intentLs` settings, shows the `intent/status` notification in the
// status bar, the ledger's intents → files → AST nodes in the "Intents" view, and adds
// palette commands around the server's `intent.*` commands.
import * as child_process from 'node:child_process';
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  State,
} from 'vscode-languageclient/node';
import { discoverServer } from './discovery';
import { IntentsView, revealNode } from './intentsView';
import { createTraceChannel, pipeStderr } from './logs';
import { type IntentStatus, StatusView } from './status';

const SECTION = 'intentLs';
/** Settings the server understands; it rejects unknown keys, so client-only ones are dropped. */
const SERVER_KEYS = [
  'severity',
  'contributor',
  'extraIgnores',
  'pollInterval',
  'ledger',
  'codeLens',
  'destructive',
  'analysisDelay',
] as const;
const SPEC_GLOB = '**/.orchestration/active_intents.yaml';

interface ListedIntent {
  id: string;
  name: string;
  status: string;
  selectable: boolean;
  active: boolean;
  owned_scope: string[];
}

let client: LanguageClient | undefined;
/** The program (and leading arguments) the running server was started with: the CLI
 * verbs, such as `report`, run through the same one. */
let serverProgram: string[] | undefined;
let output: vscode.LogOutputChannel;
let traceOutput: vscode.LogOutputChannel & vscode.Disposable;
let status: StatusView | undefined;
let intentsView: IntentsView;
let extensionContext: vscode.ExtensionContext;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionContext = context;
  output = vscode.window.createOutputChannel('intent-ls', { log: true });
  traceOutput = createTraceChannel('intent-ls LSP trace', SECTION);
  intentsView = new IntentsView((line) => output.warn(line));
  const specWatcher = vscode.workspace.createFileSystemWatcher(SPEC_GLOB, false, true, true);

  context.subscriptions.push(
    output,
    traceOutput,
    intentsView,
    specWatcher,
    vscode.window.registerTreeDataProvider('intentLs.intents', intentsView),
    vscode.commands.registerCommand('intentLs.selectIntent', selectIntent),
    vscode.commands.registerCommand('intentLs.clearIntent', clearIntent),
    vscode.commands.registerCommand('intentLs.showContext', showContext),
    vscode.commands.registerCommand('intentLs.recordLesson', recordLesson),
    vscode.commands.registerCommand('intentLs.openReport', openReport),
    vscode.commands.registerCommand('intentLs.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('intentLs.refreshIntents', () => intentsView.refresh()),
    vscode.commands.registerCommand('intentLs.revealNode', revealNode),
    vscode.commands.registerCommand('intentLs.restartServer', async () => {
      await stopClient();
      await startClient(true);
    }),
    vscode.window.onDidChangeActiveTextEditor(() => status?.render()),
    // A folder that becomes governed (`intent-ls init`, a checkout) starts the server.
    specWatcher.onDidCreate(() => void startClient(false)),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void startClient(false)),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration(SECTION)) {
        return;
      }
      if (event.affectsConfiguration(`${SECTION}.serverCommand`)) {
        await stopClient();
        await startClient(false);
      } else if (event.affectsConfiguration(`${SECTION}.startEverywhere`)) {
        await startClient(false);
      } else if (client?.isRunning()) {
        // Push mode: the server applies `{intentLs: {...}}` directly.
        await client.sendNotification('workspace/didChangeConfiguration', {
          settings: { [SECTION]: serverSettings(undefined) },
        });
      }
    }),
  );
  await startClient(false);
}

export async function deactivate(): Promise<void> {
  await stopClient();
}

// -- where to start ----------------------------------------------------------------------

async function governedFolders(): Promise<vscode.WorkspaceFolder[]> {
  const found: vscode.WorkspaceFolder[] = [];
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    const spec = vscode.Uri.joinPath(folder.uri, '.orchestration', 'active_intents.yaml');
    try {
      await vscode.workspace.fs.stat(spec);
      found.push(folder);
    } catch {
      // Not governed: nothing to do in this folder.
    }
  }
  return found;
}

/** True when the server should run in this window: a governed folder, or the opt-in. */
async function wanted(): Promise<boolean> {
  if (vscode.workspace.getConfiguration(SECTION).get<boolean>('startEverywhere', false)) {
    return true;
  }
  return (await governedFolders()).length > 0;
}

// -- server process ----------------------------------------------------------------------

/** Spawns `command... serve` in the governed folder; resolves once the process runs. */
function serverOptions(command: string[], cwd: string | undefined): ServerOptions {
  return async () => {
    const [program, ...args] = command;
    const proc = child_process.spawn(program, [...args, 'serve'], { cwd, env: process.env, stdio: 'pipe' });
    await new Promise<void>((resolve, reject) => {
      proc.once('spawn', resolve);
      proc.once('error', reject);
    });
    return proc;
  };
}

function notifyNoServer(failures: string[]): void {
  const message =
    'intent-ls: the language server was not found. Install it in the Python environment you ' +
    'use (`pip install intent-ls`) and select that interpreter, or set "intentLs.serverCommand"; ' +
    'then run "intent-ls: Restart server". ' +
    `Tried: ${failures.join('; ')}.`;
  void vscode.window.showErrorMessage(message, 'Open Settings', 'Show Output').then((choice) => {
    if (choice === 'Open Settings') {
      void vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.serverCommand`);
    } else if (choice === 'Show Output') {
      output.show(true);
    }
  });
}

/** The `intentLs` settings the server understands, for a scope (a folder URI) or globally. */
function serverSettings(scope: vscode.Uri | undefined): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  const settings: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) {
    const value = config.get(key);
    if (value !== undefined && value !== null) {
      settings[key] = value;
    }
  }
  return settings;
}

function clientOptions(): LanguageClientOptions {
  return {
    // Governance applies to every file, whatever its language.
    documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
    initializationOptions: { [SECTION]: serverSettings(undefined) },
    outputChannel: output,
    traceOutputChannel: traceOutput,
    stdioOptions: { stdout: () => undefined, stderr: pipeStderr },
    middleware: {
      workspace: {
        // VS Code would answer with the whole section, client-only keys included.
        configuration: (params, token, next) => {
          const filtered = params.items.map((item) =>
            item.section === SECTION
              ? serverSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined)
              : undefined,
          );
          if (params.items.every((item) => item.section === SECTION)) {
            return filtered;
          }
          return Promise.resolve(next(params, token)).then((answers) =>
            Array.isArray(answers)
              ? answers.map((answer, i) => (params.items[i].section === SECTION ? filtered[i] : answer))
              : answers,
          );
        },
      },
    },
  };
}

let starting: Promise<void> | undefined;
/** `intentLs.serverCommand` (as JSON) when discovery last found nothing. */
let failedWith: string | undefined;

/** Starts the server when this window needs it (`force`: the user asked) and it is not
 * running yet; concurrent triggers share one start. */
function startClient(force: boolean): Promise<void> {
  starting ??= launch(force).finally(() => {
    starting = undefined;
  });
  return starting;
}

async function launch(force: boolean): Promise<void> {
  if (client || !(force || (await wanted()))) {
    return;
  }
  const folder = (await governedFolders())[0] ?? vscode.workspace.workspaceFolders?.[0];
  const config = vscode.workspace.getConfiguration(SECTION, folder?.uri);
  const setting = JSON.stringify(config.get('serverCommand') ?? null);
  if (!force && failedWith === setting) {
    return; // the user was told once; a new setting or "Restart server" tries again
  }
  if (!status) {
    status = new StatusView();
    extensionContext.subscriptions.push(status);
  }
  status.starting();
  // Discovery before the client exists: when nothing works the user gets one notification
  // (ours, with the fix), not a second one from vscode-languageclient.
  const { found, failures } = await discoverServer(config, folder?.uri, (line) => output.info(line));
  if (!found) {
    failedWith = setting;
    notifyNoServer(failures);
    status.stopped();
    return;
  }
  failedWith = undefined;
  serverProgram = found.command;
  const next = new LanguageClient(
    'intentLs',
    'intent-ls',
    serverOptions(found.command, folder?.uri.fsPath),
    clientOptions(),
  );
  client = next;
  extensionContext.subscriptions.push(
    next.onNotification('intent/status', (payload: IntentStatus) => {
      status?.update(payload);
      intentsView.statusChanged(payload.folder, payload.intent?.id ?? null);
    }),
    next.onNotification('intent/recorded', () => intentsView.refresh()),
    next.onDidChangeState((event) => {
      if (event.newState === State.Stopped && client === next) {
        status?.stopped();
        intentsView.setClient(undefined);
        void vscode.commands.executeCommand('setContext', 'intentLs.running', false);
      }
    }),
  );
  try {
    await next.start();
    await vscode.commands.executeCommand('setContext', 'intentLs.running', true);
    intentsView.setClient(next);
  } catch (error) {
    output.error(`intent-ls: the server failed to start: ${String(error)}`);
    status?.stopped();
  }
}

async function stopClient(): Promise<void> {
  const current = client;
  client = undefined;
  intentsView?.setClient(undefined);
  if (current) {
    try {
      await current.stop(2000);
    } catch {
      // Already dead: nothing to stop.
    }
  }
}

// -- commands ----------------------------------------------------------------------------

/** A URI telling the server which workspace folder a command is for (multi-root windows). */
async function folderHint(): Promise<string | undefined> {
  const uri = vscode.window.activeTextEditor?.document.uri;
  if (uri?.scheme === 'file' && vscode.workspace.getWorkspaceFolder(uri)) {
    return uri.toString();
  }
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 1) {
    return folders[0].uri.toString();
  }
  if (folders.length > 1) {
    const picked = await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Workspace folder' });
    return picked?.uri.toString();
  }
  return undefined;
}

async function execute<T>(command: string, args: unknown[]): Promise<T | undefined> {
  if (!client?.isRunning()) {
    void vscode.window.showErrorMessage(
      'intent-ls: the server is not running (it starts in folders with .orchestration/active_intents.yaml, ' +
        'or everywhere with "intentLs.startEverywhere"; see "intent-ls: Show server output")',
    );
    return undefined;
  }
  try {
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as T;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    void vscode.window.showErrorMessage(message.startsWith('intent-ls') ? message : `intent-ls: ${message}`);
    return undefined;
  }
}

/** What a row of the status item's pick does: select an intent, move one through its
 * lifecycle, or (`report`) open the intent report. */
type IntentPickItem = vscode.QuickPickItem & { id?: string; command?: string; report?: boolean };

/** Intent statuses from which the server's `intent.complete` moves an intent on. */
const COMPLETABLE = ['IN_PROGRESS', 'BLOCKED'];

async function selectIntent(): Promise<void> {
  const hint = await folderHint();
  const intents = await execute<ListedIntent[]>('intent.list', hint ? [hint] : []);
  if (!intents) {
    return;
  }
  const items: IntentPickItem[] = intents
    .filter((i) => i.selectable)
    .map((i) => ({
      label: i.id,
      description: i.name + (i.active ? ' (active)' : ''),
      detail: i.owned_scope.join(', '),
      id: i.id,
    }));
  const lifecycle = lifecycleItems(intents);
  if (items.length === 0 && lifecycle.length === 0) {
    void vscode.window.showWarningMessage('intent-ls: no IN_PROGRESS intent to select in the spec');
  }
  if (lifecycle.length > 0) {
    items.push({ label: 'Lifecycle', kind: vscode.QuickPickItemKind.Separator }, ...lifecycle);
  }
  items.push(
    { label: 'Report', kind: vscode.QuickPickItemKind.Separator },
    {
      label: '$(graph) Open intent report',
      description: 'intents, records and who changed what, as a web page',
      report: true,
    },
  );
  const picked = await vscode.window.showQuickPick(items, {
    title: 'intent-ls: Select active intent',
    placeHolder: 'Intent to work under, or one to start or complete',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (picked?.report) {
    await openReport();
    return;
  }
  if (!picked?.id) {
    return;
  }
  if (picked.command) {
    await moveIntent(picked.command, picked.id, hint);
    return;
  }
  const result = await execute<{ intent: { id: string; name: string } }>('intent.select', [
    picked.id,
    ...(hint ? [hint] : []),
  ]);
  if (result) {
    void vscode.window.setStatusBarMessage(`intent-ls: ${result.intent.id} ${result.intent.name} selected`, 4000);
  }
}

/** "Complete intent" for the active intent and "Start intent" for each DRAFT one: the
 * transitions the spec's code lenses offer, reachable without opening the spec. */
function lifecycleItems(intents: ListedIntent[]): IntentPickItem[] {
  const out: IntentPickItem[] = [];
  for (const intent of intents) {
    if (intent.active && COMPLETABLE.includes(intent.status)) {
      out.push({
        label: `$(pass) Complete intent ${intent.id}`,
        description: intent.name,
        id: intent.id,
        command: 'intent.complete',
      });
    }
  }
  for (const intent of intents) {
    if (intent.status === 'DRAFT') {
      out.push({
        label: `$(play) Start intent ${intent.id}`,
        description: intent.name,
        id: intent.id,
        command: 'intent.start',
      });
    }
  }
  return out;
}

/** Runs `intent.start` / `intent.complete`; the server asks for confirmation itself and
 * edits the spec through the editor, so the change is in the user's buffer to save. */
async function moveIntent(command: string, id: string, hint: string | undefined): Promise<void> {
  const result = await execute<{ intent: string; status: string; applied: boolean; reason?: string }>(command, [
    id,
    ...(hint ? [hint] : []),
  ]);
  if (!result) {
    return;
  }
  if (result.applied) {
    void vscode.window.setStatusBarMessage(`intent-ls: ${result.intent} is now ${result.status}`, 4000);
  } else if (result.reason !== 'not confirmed') {
    void vscode.window.showWarningMessage(
      `intent-ls: ${result.intent} was not changed: ${result.reason ?? 'the editor refused the edit'}`,
    );
  }
}

async function clearIntent(): Promise<void> {
  const hint = await folderHint();
  const result = await execute<{ state: string }>('intent.clear', hint ? [hint] : []);
  if (result) {
    void vscode.window.setStatusBarMessage('intent-ls: active intent cleared', 4000);
  }
}

async function showContext(): Promise<void> {
  const hint = await folderHint();
  const result = await execute<{ context: string }>('intent.context', hint ? [hint] : []);
  if (result) {
    const doc = await vscode.workspace.openTextDocument({ language: 'xml', content: result.context });
    await vscode.window.showTextDocument(doc, { preview: false });
  }
}

async function recordLesson(): Promise<void> {
  const hint = await folderHint();
  const text = await vscode.window.showInputBox({
    title: 'intent-ls: Record a lesson for the active intent',
    prompt: 'What should the next session working on this intent know?',
    validateInput: (value) => (value.trim() ? undefined : 'The lesson cannot be empty'),
  });
  if (!text?.trim()) {
    return;
  }
  const result = await execute<{ intent: string; path: string }>('intent.recordLesson', [
    text,
    ...(hint ? [hint] : []),
  ]);
  if (result) {
    void vscode.window.showInformationMessage(`intent-ls: lesson recorded for ${result.intent} in ${result.path}`);
  }
}

/** The folder a CLI verb should run in: the active editor's workspace folder, else the
 * only (or a picked) one. */
async function activeFolder(): Promise<vscode.WorkspaceFolder | undefined> {
  const hint = await folderHint();
  return hint ? vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(hint)) : undefined;
}

/** Runs `intent-ls report` for the folder (written to its never-committed
 * `.orchestration/.local/`) and opens the page in the browser. */
async function openReport(): Promise<void> {
  const folder = await activeFolder();
  if (!folder) {
    return;
  }
  const program = serverProgram ?? ['intent-ls'];
  const out = vscode.Uri.joinPath(folder.uri, '.orchestration', '.local', 'report.html');
  const args = [...program.slice(1), 'report', '--workspace', folder.uri.fsPath, '--out', out.fsPath];
  const failure = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'intent-ls: writing the report' },
    () =>
      new Promise<string | undefined>((resolve) => {
        child_process.execFile(program[0], args, { cwd: folder.uri.fsPath }, (error, _stdout, stderr) =>
          resolve(error ? stderr.trim() || String(error) : undefined),
        );
      }),
  );
  if (failure) {
    output.error(`intent-ls report: ${failure}`);
    void vscode.window.showErrorMessage(`intent-ls: the report failed: ${failure.split('\n')[0]}`);
    return;
  }
  await vscode.env.openExternal(out);
}

// A thin VS Code client for the intent-ls language server (`intent-ls serve`, stdio).
//
// Everything that governs edits lives in the server: this extension starts it for every
// file type, forwards the `intentLs` settings, shows the `intent/status` notification in
// the status bar and adds palette commands around the server's `intent.*` commands.
import * as child_process from 'node:child_process';
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  State,
} from 'vscode-languageclient/node';

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
const FALLBACK_COMMAND = ['python3', '-m', 'intent_ls'];

/** The `intent/status` payload (see docs/server.md). */
interface IntentStatus {
  folder: string;
  governed: boolean;
  state: string;
  sessionId?: string;
  intent: { id: string; name: string; status: string } | null;
  spec?: { valid: boolean; stale: boolean; errors: number; warnings: number; intents: number };
  approvals?: number;
  message: string;
}

interface ListedIntent {
  id: string;
  name: string;
  status: string;
  selectable: boolean;
  active: boolean;
  owned_scope: string[];
}

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let statusItem: vscode.StatusBarItem;
const statuses = new Map<string, IntentStatus>();
let lastStatusFolder: string | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('intent-ls', { log: true });
  statusItem = vscode.window.createStatusBarItem('intentLs.status', vscode.StatusBarAlignment.Left, 100);
  statusItem.name = 'intent-ls';
  statusItem.command = 'intentLs.selectIntent';
  statusItem.text = '$(sync~spin) intent-ls';
  statusItem.tooltip = 'intent-ls is starting';
  statusItem.show();

  context.subscriptions.push(
    output,
    statusItem,
    vscode.commands.registerCommand('intentLs.selectIntent', selectIntent),
    vscode.commands.registerCommand('intentLs.clearIntent', clearIntent),
    vscode.commands.registerCommand('intentLs.showContext', showContext),
    vscode.commands.registerCommand('intentLs.recordLesson', recordLesson),
    vscode.commands.registerCommand('intentLs.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('intentLs.restartServer', async () => {
      await stopClient();
      await startClient(context);
    }),
    vscode.window.onDidChangeActiveTextEditor(() => renderStatus()),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration(SECTION)) {
        return;
      }
      if (event.affectsConfiguration(`${SECTION}.serverCommand`)) {
        await stopClient();
        await startClient(context);
      } else if (client?.isRunning()) {
        // Push mode: the server applies `{intentLs: {...}}` directly.
        await client.sendNotification('workspace/didChangeConfiguration', {
          settings: { [SECTION]: serverSettings(undefined) },
        });
      }
    }),
  );
  await startClient(context);
}

export async function deactivate(): Promise<void> {
  await stopClient();
}

// -- server process ----------------------------------------------------------------------

function configuredCommand(): string[] {
  const raw = vscode.workspace.getConfiguration(SECTION).get<unknown>('serverCommand');
  if (typeof raw === 'string' && raw.trim()) {
    return [raw.trim()];
  }
  if (Array.isArray(raw) && raw.length > 0 && raw.every((s) => typeof s === 'string' && s)) {
    return raw as string[];
  }
  return ['intent-ls'];
}

/** Spawns `cmd... serve`; resolves once the process started, rejects when it could not. */
function spawnServer(cmd: string[], cwd: string | undefined): Promise<child_process.ChildProcess> {
  return new Promise((resolve, reject) => {
    const proc = child_process.spawn(cmd[0], [...cmd.slice(1), 'serve'], {
      cwd,
      env: process.env,
      stdio: 'pipe',
    });
    proc.once('spawn', () => resolve(proc));
    proc.once('error', reject);
    proc.stderr?.on('data', (chunk: Buffer) => output.append(chunk.toString()));
  });
}

function serverOptions(): ServerOptions {
  return async () => {
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const cmd = configuredCommand();
    try {
      return await spawnServer(cmd, cwd);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      output.appendLine(
        `intent-ls: cannot start ${cmd.join(' ')} (${reason}); trying ${FALLBACK_COMMAND.join(' ')}`,
      );
      try {
        return await spawnServer(FALLBACK_COMMAND, cwd);
      } catch (fallbackError) {
        const message =
          `intent-ls: cannot start the server with "${cmd.join(' ')} serve" (${reason}) nor ` +
          `"${FALLBACK_COMMAND.join(' ')} serve". Install intent-ls (pip install intent-ls) or ` +
          `set "intentLs.serverCommand".`;
        void vscode.window.showErrorMessage(message, 'Open Settings').then((choice) => {
          if (choice) {
            void vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.serverCommand`);
          }
        });
        throw fallbackError;
      }
    }
  };
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
    traceOutputChannel: output,
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

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const next = new LanguageClient('intentLs', 'intent-ls', serverOptions(), clientOptions());
  client = next;
  context.subscriptions.push(
    next.onNotification('intent/status', (status: IntentStatus) => {
      statuses.set(status.folder, status);
      lastStatusFolder = status.folder;
      renderStatus();
    }),
    next.onDidChangeState((event) => {
      if (event.newState === State.Stopped) {
        statuses.clear();
        statusItem.text = '$(error) intent-ls';
        statusItem.tooltip = 'intent-ls server stopped — click to see its output';
        statusItem.command = 'intentLs.showOutput';
        statusItem.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
      }
    }),
  );
  try {
    await next.start();
    statusItem.command = 'intentLs.selectIntent';
    if (statuses.size === 0) {
      statusItem.text = '$(shield) intent-ls';
      statusItem.tooltip = 'intent-ls: no governed workspace folder';
      statusItem.backgroundColor = undefined;
    }
  } catch (error) {
    output.appendLine(`intent-ls: the server failed to start: ${String(error)}`);
  }
}

async function stopClient(): Promise<void> {
  const current = client;
  client = undefined;
  if (current) {
    try {
      await current.stop(2000);
    } catch {
      // Already dead: nothing to stop.
    }
  }
}

// -- status bar --------------------------------------------------------------------------

/** The status of the active editor's folder, else of the folder reported last. */
function currentStatus(): IntentStatus | undefined {
  const uri = vscode.window.activeTextEditor?.document.uri;
  if (uri && uri.scheme === 'file') {
    const text = uri.toString();
    let best: IntentStatus | undefined;
    for (const status of statuses.values()) {
      const prefix = status.folder.endsWith('/') ? status.folder : `${status.folder}/`;
      if (text.startsWith(prefix) && (!best || status.folder.length > best.folder.length)) {
        best = status;
      }
    }
    if (best) {
      return best;
    }
  }
  return lastStatusFolder ? statuses.get(lastStatusFolder) : undefined;
}

function renderStatus(): void {
  const status = currentStatus();
  if (!status) {
    return;
  }
  statusItem.command = 'intentLs.selectIntent';
  const state = humanState(status.state);
  if (!status.governed) {
    statusItem.text = '$(shield) intent-ls: not governed';
    statusItem.backgroundColor = undefined;
  } else if (status.intent) {
    statusItem.text = `$(shield) ${status.intent.id} · ${state}`;
    statusItem.backgroundColor =
      status.state === 'BLOCKED' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  } else {
    statusItem.text = `$(shield) no intent · ${state}`;
    statusItem.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  }
  const lines = [status.message, `State: ${status.state}`];
  if (status.intent) {
    lines.push(`Intent: ${status.intent.id} ${status.intent.name} (${status.intent.status})`);
  }
  if (status.spec) {
    lines.push(
      `Spec: ${status.spec.intents} intents, ${status.spec.errors} errors, ${status.spec.warnings} warnings` +
        (status.spec.stale ? ' (stale)' : ''),
    );
  }
  if (status.approvals) {
    lines.push(`Approvals: ${status.approvals}`);
  }
  lines.push('', 'Click to select the active intent');
  statusItem.tooltip = lines.join('\n');
  statusItem.show();
}

function humanState(state: string): string {
  switch (state) {
    case 'AWAITING_INTENT_SELECTION':
      return 'awaiting selection';
    case 'CONTEXT_LOADED':
      return 'context loaded';
    case 'ACTION_ALLOWED':
      return 'allowed';
    case 'BLOCKED':
      return 'blocked';
    default:
      return state.toLowerCase();
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
    void vscode.window.showErrorMessage('intent-ls: the server is not running');
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

async function selectIntent(): Promise<void> {
  const hint = await folderHint();
  const intents = await execute<ListedIntent[]>('intent.list', hint ? [hint] : []);
  if (!intents) {
    return;
  }
  const items = intents
    .filter((i) => i.selectable)
    .map((i) => ({
      label: i.id,
      description: i.name + (i.active ? ' (active)' : ''),
      detail: i.owned_scope.join(', '),
      id: i.id,
    }));
  if (items.length === 0) {
    void vscode.window.showWarningMessage('intent-ls: no IN_PROGRESS intent to select in the spec');
    return;
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: 'intent-ls: Select active intent',
    placeHolder: 'Intent to work under',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!picked) {
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

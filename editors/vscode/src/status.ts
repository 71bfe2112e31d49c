// The status bar item: the `intent/status` of the active editor's folder, as the server
// sent it (the server keeps the state consistent with the diagnostics; this only renders).
import * as vscode from 'vscode';

/** The `intent/status` payload (see docs/server.md). */
export interface IntentStatus {
  folder: string;
  governed: boolean;
  state: string;
  sessionId?: string;
  intent: { id: string; name: string; status: string } | null;
  spec?: { valid: boolean; stale: boolean; errors: number; warnings: number; intents: number };
  approvals?: number;
  message: string;
}

export class StatusView implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private readonly statuses = new Map<string, IntentStatus>();
  private lastFolder: string | undefined;

  constructor() {
    this.item = vscode.window.createStatusBarItem('intentLs.status', vscode.StatusBarAlignment.Left, 100);
    this.item.name = 'intent-ls';
    this.starting();
  }

  dispose(): void {
    this.item.dispose();
  }

  starting(): void {
    this.item.command = 'intentLs.selectIntent';
    this.item.text = '$(sync~spin) intent-ls';
    this.item.tooltip = 'intent-ls is starting';
    this.item.backgroundColor = undefined;
    this.item.show();
  }

  stopped(): void {
    this.statuses.clear();
    this.item.text = '$(error) intent-ls';
    this.item.tooltip = 'intent-ls server stopped — click to see its output';
    this.item.command = 'intentLs.showOutput';
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    this.item.show();
  }

  update(status: IntentStatus): void {
    this.statuses.set(status.folder, status);
    this.lastFolder = status.folder;
    this.render();
  }

  /** The status of the active editor's folder, else of the folder reported last. */
  current(): IntentStatus | undefined {
    const uri = vscode.window.activeTextEditor?.document.uri;
    if (uri && uri.scheme === 'file') {
      const text = uri.toString();
      let best: IntentStatus | undefined;
      for (const status of this.statuses.values()) {
        const prefix = status.folder.endsWith('/') ? status.folder : `${status.folder}/`;
        if (text.startsWith(prefix) && (!best || status.folder.length > best.folder.length)) {
          best = status;
        }
      }
      if (best) {
        return best;
      }
    }
    return this.lastFolder ? this.statuses.get(this.lastFolder) : undefined;
  }

  render(): void {
    const status = this.current();
    if (!status) {
      return;
    }
    const item = this.item;
    item.command = 'intentLs.selectIntent';
    const state = humanState(status.state);
    if (!status.governed) {
      item.text = '$(shield) intent-ls: not governed';
      item.backgroundColor = undefined;
    } else if (status.intent) {
      item.text = `$(shield) ${status.intent.id} · ${state}`;
      item.backgroundColor =
        status.state === 'BLOCKED' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    } else {
      item.text = `$(shield) no intent · ${state}`;
      item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
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
    lines.push('', 'Click to select, start or complete an intent, or open the report');
    item.tooltip = lines.join('\n');
    item.show();
  }
}

export function humanState(state: string): string {
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

// The "Intents" view: intents → files → AST nodes, from the server's `intent/map` request
// (the same aggregate as .orchestration/intent_map.md). Refreshed when a record is written
// (`intent/recorded`) or the status changes (selection, spec reload).
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';

interface MapNode {
  name: string;
  kind: string | null;
  changes: number;
  last: string;
}

interface MapFile {
  path: string;
  uri: string;
  changes: number;
  last: string;
  contributors: string[];
  nodes: MapNode[];
}

interface MapIntent {
  id: string;
  name: string | null;
  status: string | null;
  inSpec: boolean;
  files: MapFile[];
}

interface IntentMap {
  folder: string;
  governed: boolean;
  intents: MapIntent[];
  error?: string;
}

type Element =
  | { type: 'folder'; map: IntentMap }
  | { type: 'intent'; intent: MapIntent; active: boolean }
  | { type: 'file'; file: MapFile }
  | { type: 'node'; node: MapNode; file: MapFile }
  | { type: 'message'; text: string };

const REFRESH_DELAY_MS = 200;

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

export class IntentsView implements vscode.TreeDataProvider<Element>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Element | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private client: LanguageClient | undefined;
  private maps: IntentMap[] = [];
  private activeIntents = new Map<string, string | null>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly log: (line: string) => void) {}

  dispose(): void {
    clearTimeout(this.timer);
    this.changed.dispose();
  }

  setClient(client: LanguageClient | undefined): void {
    this.client = client;
    this.refresh();
  }

  /** Remembers each folder's active intent (to mark it) and schedules a refresh. */
  statusChanged(folder: string, intent: string | null): void {
    this.activeIntents.set(folder, intent);
    this.refresh();
  }

  /** Coalesces bursts (a save sends a record and a status) into one request per folder. */
  refresh(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.load(), REFRESH_DELAY_MS);
  }

  private async load(): Promise<void> {
    const client = this.client;
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (!client?.isRunning()) {
      this.maps = [];
      this.changed.fire(undefined);
      return;
    }
    const maps: IntentMap[] = [];
    for (const folder of folders) {
      try {
        const map = await client.sendRequest<IntentMap>('intent/map', { uri: folder.uri.toString() });
        if (map.governed) {
          maps.push(map);
        }
      } catch (error) {
        this.log(`intent-ls: the Intents view could not read ${folder.name}: ${String(error)}`);
      }
    }
    this.maps = maps;
    this.changed.fire(undefined);
  }

  getChildren(element?: Element): Element[] {
    if (!element) {
      if (this.maps.length === 1) {
        return this.intentsOf(this.maps[0]);
      }
      return this.maps.map((map) => ({ type: 'folder', map }));
    }
    switch (element.type) {
      case 'folder':
        return this.intentsOf(element.map);
      case 'intent':
        return element.intent.files.length
          ? element.intent.files.map((file) => ({ type: 'file', file }))
          : [{ type: 'message', text: 'No recorded changes' }];
      case 'file':
        return element.file.nodes.map((node) => ({ type: 'node', node, file: element.file }));
      default:
        return [];
    }
  }

  private intentsOf(map: IntentMap): Element[] {
    const active = this.activeIntents.get(map.folder);
    const out: Element[] = map.intents.map((intent) => ({ type: 'intent', intent, active: intent.id === active }));
    if (map.error) {
      out.push({ type: 'message', text: map.error });
    }
    return out;
  }

  getTreeItem(element: Element): vscode.TreeItem {
    const { Collapsed, None, Expanded } = vscode.TreeItemCollapsibleState;
    switch (element.type) {
      case 'folder': {
        const item = new vscode.TreeItem(vscode.Uri.parse(element.map.folder).path.split('/').pop() ?? '', Expanded);
        item.iconPath = vscode.ThemeIcon.Folder;
        return item;
      }
      case 'intent': {
        const { intent } = element;
        const item = new vscode.TreeItem(`${intent.id}: ${intent.name ?? '(not in the spec)'}`, intent.files.length ? Expanded : Collapsed);
        item.id = `intent:${intent.id}`;
        item.description = [intent.status ?? 'unknown', element.active ? 'active' : '', plural(intent.files.length, 'file')]
          .filter(Boolean)
          .join(' · ');
        item.iconPath = new vscode.ThemeIcon(element.active ? 'target' : 'milestone');
        item.contextValue = 'intent';
        return item;
      }
      case 'file': {
        const { file } = element;
        const item = new vscode.TreeItem(vscode.Uri.parse(file.uri), file.nodes.length ? Collapsed : None);
        item.label = file.path;
        item.description = `${plural(file.changes, 'change')} · ${file.last}`;
        item.tooltip = `${file.path}\n${plural(file.changes, 'recorded change')}, last ${file.last}\nBy ${file.contributors.join(', ') || 'unknown'}`;
        item.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.parse(file.uri)] };
        return item;
      }
      case 'node': {
        const { node, file } = element;
        const item = new vscode.TreeItem(node.name, None);
        item.description = `${node.kind ?? 'node'} · ${plural(node.changes, 'change')}`;
        item.tooltip = `${node.name} (${node.kind ?? 'node'}) in ${file.path}\nLast change ${node.last}`;
        item.iconPath = new vscode.ThemeIcon('symbol-method');
        item.command = {
          command: 'intentLs.revealNode',
          title: 'Show in file',
          arguments: [file.uri, node.name],
        };
        return item;
      }
      default: {
        const item = new vscode.TreeItem(element.text, None);
        item.iconPath = new vscode.ThemeIcon('info');
        return item;
      }
    }
  }
}

/** Opens `uri` at the definition `name` (qualified: `Class.method`) when the file's
 * symbols know it, else at the top. */
export async function revealNode(uri: string, name: string): Promise<void> {
  const target = vscode.Uri.parse(uri);
  const editor = await vscode.window.showTextDocument(target, { preview: true });
  const symbols =
    (await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>(
      'vscode.executeDocumentSymbolProvider',
      target,
    )) ?? [];
  const wanted = name.split('.');
  let level: vscode.DocumentSymbol[] = symbols;
  let found: vscode.DocumentSymbol | undefined;
  for (const part of wanted) {
    found = level.find((s) => s.name === part);
    if (!found) {
      break;
    }
    level = found.children;
  }
  if (found) {
    editor.selection = new vscode.Selection(found.selectionRange.start, found.selectionRange.start);
    editor.revealRange(found.range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }
}

// Server output, once and at its level.
//
// vscode-languageclient logs every stderr line as an error by default, and the extension
// used to copy stderr as well: each line appeared twice, both times at the wrong level.
// `intent-ls serve` prefixes each log record with its level (`WARNING intent_ls…: …`);
// continuation lines (a traceback) keep the level of the record they belong to.
//
// LSP tracing: vscode-languageclient 11 traces only while its trace channel's log level is
// Trace, so `intentLs.trace.server` alone did nothing. The trace channel here is a plain
// output channel behind the LogOutputChannel interface whose level follows the setting.
import * as readline from 'node:readline';
import type { Readable } from 'node:stream';
import * as vscode from 'vscode';

const LEVEL = /^(DEBUG|INFO|WARNING|ERROR|CRITICAL) /;

type Writer = (line: string) => void;

/** Reads server stderr line by line into `channel` at each record's level. */
export function pipeStderr(input: Readable, channel: vscode.LogOutputChannel): void {
  const writers: Record<string, Writer> = {
    DEBUG: (line) => channel.debug(line),
    INFO: (line) => channel.info(line),
    WARNING: (line) => channel.warn(line),
    ERROR: (line) => channel.error(line),
    CRITICAL: (line) => channel.error(line),
  };
  let current: Writer = writers.WARNING;
  readline
    .createInterface({ input, crlfDelay: Infinity, terminal: false, historySize: 0 })
    .on('line', (line: string) => {
      const level = LEVEL.exec(line);
      if (level) {
        current = writers[level[1]];
        current(line.slice(level[0].length));
      } else if (line.trim()) {
        current(line);
      }
    });
}

/** `intentLs.trace.server` as the trace channel's log level: Trace unless it is `off`. */
function traceLevel(section: string): vscode.LogLevel {
  const value = vscode.workspace.getConfiguration(section).get<string>('trace.server', 'off');
  return value === 'off' ? vscode.LogLevel.Off : vscode.LogLevel.Trace;
}

/** A LogOutputChannel over a plain output channel, its level driven by the setting. */
export function createTraceChannel(name: string, section: string): vscode.LogOutputChannel & vscode.Disposable {
  const plain = vscode.window.createOutputChannel(name);
  const changed = new vscode.EventEmitter<vscode.LogLevel>();
  let level = traceLevel(section);
  const watch = vscode.workspace.onDidChangeConfiguration((event) => {
    if (event.affectsConfiguration(`${section}.trace.server`)) {
      level = traceLevel(section);
      changed.fire(level);
    }
  });
  const write = (message: string) => plain.appendLine(message);
  return {
    name,
    get logLevel() {
      return level;
    },
    onDidChangeLogLevel: changed.event,
    trace: write,
    debug: write,
    info: write,
    warn: write,
    error: (error: string | Error) => write(String(error)),
    append: (value: string) => plain.append(value),
    appendLine: write,
    replace: (value: string) => plain.replace(value),
    clear: () => plain.clear(),
    show: (column?: vscode.ViewColumn | boolean, preserveFocus?: boolean) =>
      typeof column === 'boolean' ? plain.show(column) : plain.show(column, preserveFocus),
    hide: () => plain.hide(),
    dispose: () => {
      watch.dispose();
      changed.dispose();
      plain.dispose();
    },
  };
}

// Finds the program that runs `intent-ls serve`, in the order users expect: what they
// configured, else the interpreter they picked in the Python extension (the venv they work
// in usually holds intent-ls), else `intent-ls` on PATH.
import * as child_process from 'node:child_process';
import * as vscode from 'vscode';

/** A way to run intent-ls: the program and its leading arguments (`serve` is appended). */
export interface ServerCandidate {
  command: string[];
  /** Where it came from, for the log and the notification. */
  origin: string;
}

/** What the ms-python.python extension exposes (only the parts used here). */
interface PythonApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment(
      env: { path: string } | string,
    ): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
  };
  settings?: {
    getExecutionDetails(resource?: vscode.Uri): { execCommand: string[] | undefined };
  };
}

const PROBE_TIMEOUT_MS = 10000;

/** The `intentLs.serverCommand` setting when the user set one. */
export function configuredCommand(config: vscode.WorkspaceConfiguration): string[] | undefined {
  const raw = config.get<unknown>('serverCommand');
  if (typeof raw === 'string' && raw.trim()) {
    return [raw.trim()];
  }
  if (Array.isArray(raw) && raw.length > 0 && raw.every((s) => typeof s === 'string' && s)) {
    return raw as string[];
  }
  return undefined;
}

/** The Python extension's interpreter for `resource`, or undefined without that extension. */
async function pythonInterpreter(resource: vscode.Uri | undefined): Promise<string[] | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>('ms-python.python');
  if (!extension) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    if (api?.environments) {
      const active = api.environments.getActiveEnvironmentPath(resource);
      const resolved = active ? await api.environments.resolveEnvironment(active) : undefined;
      const executable = resolved?.executable.uri?.fsPath;
      if (executable) {
        return [executable];
      }
    }
    const details = api?.settings?.getExecutionDetails(resource);
    return details?.execCommand?.length ? details.execCommand : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `argv` briefly; resolves to the error text, or undefined when it exited 0. */
function probe(argv: string[], cwd: string | undefined): Promise<string | undefined> {
  return new Promise((resolve) => {
    child_process.execFile(
      argv[0],
      argv.slice(1),
      { cwd, timeout: PROBE_TIMEOUT_MS, windowsHide: true },
      (error, _stdout, stderr) => {
        if (!error) {
          resolve(undefined);
        } else {
          const detail = stderr.trim().split('\n').pop() || error.message;
          resolve(detail);
        }
      },
    );
  });
}

/**
 * The first candidate that answers `--version`, and the reasons the others failed.
 * A configured command is not second-guessed by the other sources: if it fails, that is
 * the error to fix.
 */
export async function discoverServer(
  config: vscode.WorkspaceConfiguration,
  folder: vscode.Uri | undefined,
  log: (line: string) => void,
): Promise<{ found?: ServerCandidate; failures: string[] }> {
  const candidates: ServerCandidate[] = [];
  const configured = configuredCommand(config);
  if (configured) {
    candidates.push({ command: configured, origin: 'intentLs.serverCommand' });
  } else {
    const python = await pythonInterpreter(folder);
    if (python) {
      candidates.push({ command: [...python, '-m', 'intent_ls'], origin: 'the Python extension\'s interpreter' });
    }
    candidates.push({ command: ['intent-ls'], origin: 'PATH' });
  }
  const failures: string[] = [];
  for (const candidate of candidates) {
    const error = await probe([...candidate.command, '--version'], folder?.fsPath);
    if (error === undefined) {
      log(`intent-ls: using ${candidate.command.join(' ')} serve (from ${candidate.origin})`);
      return { found: candidate, failures };
    }
    const failure = `${candidate.command.join(' ')} (from ${candidate.origin}): ${error}`;
    log(`intent-ls: cannot use ${failure}`);
    failures.push(failure);
  }
  return { failures };
}

// The environments API of ms-python.python, reduced to what intent-ls's discovery calls:
// the active interpreter is $INTENT_LS_TEST_PYTHON (set in code-server's environment).
const vscode = require('vscode');

function activate() {
  const executable = process.env.INTENT_LS_TEST_PYTHON;
  return {
    environments: {
      getActiveEnvironmentPath: () => ({ id: executable, path: executable }),
      resolveEnvironment: async () => ({ executable: { uri: vscode.Uri.file(executable) } }),
    },
  };
}

module.exports = { activate };

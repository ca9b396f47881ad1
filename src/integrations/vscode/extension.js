// The VS Code extension: starts `oomlint server` (the language server over
// stdio) for Python files, notebooks and JSON/YAML configs, and hands it
// the oomlint.* settings. Everything else is the server's.
'use strict';
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function settings() {
  const c = vscode.workspace.getConfiguration('oomlint');
  const out = {};
  for (const key of ['gpu', 'select', 'ignore']) {
    const v = c.get(key);
    if (v !== null && v !== undefined) out[key] = v;
  }
  return out;
}

function activate(context) {
  const command = vscode.workspace.getConfiguration('oomlint').get('path') || 'oomlint';
  const server = { command, args: ['server'] };
  client = new LanguageClient('oomlint', 'oomlint', { run: server, debug: server }, {
    documentSelector: [
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
      { scheme: 'file', language: 'json' },
      { scheme: 'file', language: 'jsonc' },
      { scheme: 'file', language: 'yaml' },
      { notebook: 'jupyter-notebook', language: 'python' },
    ],
    initializationOptions: settings(),
    synchronize: { configurationSection: 'oomlint' },
  });
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('oomlint') && client)
      client.sendNotification('workspace/didChangeConfiguration', { settings: { oomlint: settings() } });
  }));
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };

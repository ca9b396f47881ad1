-- Neovim's built-in LSP client (0.7) against `oomlint server`, headless:
-- open a file and see its diagnostics, apply a quick fix through a code
-- action, edit the buffer without saving and see the diagnostics change,
-- hover for the rule's documentation, a notebook's cell positions, and
-- shutdown. Writes "PASS name" / "FAIL name: why" lines to $OUT_FILE.
-- Run: OOMLINT=... WORK=... OUT_FILE=... nvim --headless -u NONE -i NONE -n -c 'luafile tests/lsp/nvim_test.lua'
local bin = os.getenv('OOMLINT')
local work = os.getenv('WORK')
local factor = tonumber(os.getenv("LSP_TIMEOUT_FACTOR") or "1")
local out = assert(io.open(os.getenv('OUT_FILE'), 'w'))

local function report(ok, name, why)
  out:write((ok and 'PASS nvim: ' or 'FAIL nvim: ') .. name .. (ok and '' or (': ' .. tostring(why):gsub('\n', ' '))) .. '\n')
  out:flush()
end

local function write(path, text)
  local f = assert(io.open(path, 'w'))
  f:write(text)
  f:close()
end

local loop_py = table.concat({
  'def train(model, loader, criterion):',
  '    losses = []',
  '    for x, y in loader:',
  '        loss = criterion(model(x), y)',
  '        loss.backward()',
  '        losses.append(loss)',
  '',
}, '\n')
write(work .. '/train.py', loop_py)
write(work .. '/finetune.ipynb', table.concat({
  '{',
  ' "cells": [',
  '  {"cell_type": "markdown", "metadata": {}, "source": ["# Notes\\n"]},',
  '  {',
  '   "cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],',
  '   "source": [',
  '    "import os\\n",',
  '    "os.environ[\\"CUDA_VISIBLE_DEVICES\\"] = \\"0\\"\\n"',
  '   ]',
  '  }',
  ' ],',
  ' "metadata": {"language_info": {"name": "python"}},',
  ' "nbformat": 4, "nbformat_minor": 5',
  '}',
  '',
}, '\n'))

local client_id = vim.lsp.start_client({
  name = 'oomlint',
  cmd = { bin, 'server' },
  root_dir = work,
  init_options = { debounceMs = 20, extendSelect = { 'OOM201', 'OOM202' } },
})
if not client_id then
  report(false, 'the client starts oomlint server', 'start_client returned nil')
  vim.cmd('qa!')
end

local function diags(buf)
  return vim.diagnostic.get(buf)
end

local function wait(cond, ms)
  return vim.wait((ms or 15000) * factor, cond, 20)
end

-- open a file: diagnostics arrive
vim.cmd('edit ' .. work .. '/train.py')
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, client_id)
local got = wait(function() return #diags(buf) > 0 end)
local d = diags(buf)[1]
report(got and d and d.code == 'OOM201' and d.lnum == 5 and d.col == 8,
  'open a file: the OOM201 diagnostic arrives at 6:9', vim.inspect(diags(buf)))
report(d and d.source == 'oomlint' and d.severity == vim.diagnostic.severity.ERROR,
  'the diagnostic has its source and severity', vim.inspect(d))

-- hover shows the rule's documentation
local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 5, character = 12 } }
local res = vim.lsp.buf_request_sync(buf, 'textDocument/hover', params, 10000 * factor)
local hover = res and res[client_id] and res[client_id].result
local value = hover and hover.contents and hover.contents.value or ''
report(value:find('tensor%-with%-graph%-stored %(OOM201%)') and value:find('What it does'),
  'hover shows the rule documentation', value:sub(1, 300))

-- apply the quick fix through a code action
local ca = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  range = { start = { line = 5, character = 8 }, ['end'] = { line = 5, character = 27 } },
  context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(buf, 5), only = { 'quickfix' } },
}, 10000 * factor)
local actions = ca and ca[client_id] and ca[client_id].result or {}
local fix
for _, a in ipairs(actions) do
  if a.isPreferred then fix = a end
end
report(fix ~= nil, 'a preferred quick fix is offered', vim.inspect(actions))
if fix then
  vim.lsp.util.apply_workspace_edit(fix.edit, 'utf-16')
end
local line = vim.api.nvim_buf_get_lines(buf, 5, 6, false)[1]
report(line == '        losses.append(loss.item())', 'the quick fix edits the buffer', line)
report(wait(function() return #diags(buf) == 0 end), 'after the fix, the diagnostic goes', vim.inspect(diags(buf)))

-- edit the buffer without saving: the diagnostics follow the unsaved text
vim.api.nvim_buf_set_lines(buf, 5, 6, false, { '        losses.append(loss)' })
report(wait(function() return #diags(buf) == 1 end), 'an unsaved edit brings the diagnostic back', vim.inspect(diags(buf)))
vim.api.nvim_buf_set_lines(buf, 0, 0, false, { 'import os', 'os.environ["CUDA_VISIBLE_DEVICES"] = "0"' })
report(wait(function()
  local ds = diags(buf)
  local codes = {}
  for _, x in ipairs(ds) do codes[x.code] = x.lnum end
  return codes.OOM101 == 1 and codes.OOM201 == 7
end), 'lines added above: a new diagnostic, the old one moved down', vim.inspect(diags(buf)))
report(vim.bo[buf].modified, 'the buffer was never saved', '')

-- a notebook opened as its JSON: the finding at the line of the cell's code
vim.cmd('edit ' .. work .. '/finetune.ipynb')
local nb = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(nb, client_id)
report(wait(function() return #diags(nb) > 0 end) and diags(nb)[1].code == 'OOM101' and diags(nb)[1].lnum == 7 and
  diags(nb)[1].col == 5, "a notebook's finding is placed at its cell's line in the .ipynb", vim.inspect(diags(nb)))

-- shutdown
local client = vim.lsp.get_client_by_id(client_id)
client.stop()
report(wait(function() return vim.lsp.client_is_stopped(client_id) end, 10000), 'shutdown: the server stops', '')
out:close()
vim.cmd('qa!')

-- Drives editors/nvim/lua/intent-ls.lua in a real headless Neovim against a copy of the
-- example workspace. Run by test_nvim_client.py:
--   nvim --headless -u NONE -i NONE -n -c 'luafile nvim_flow.lua'
-- Environment: INTENT_LS_PLUGIN (the plugin file), INTENT_LS_WS (workspace copy),
-- INTENT_LS_CMD (JSON list: the server command), INTENT_LS_RESULT (JSON written here).
-- Every wait polls for the expected state with a deadline; any failure exits non-zero.

local TIMEOUT = tonumber(os.getenv('INTENT_LS_TIMEOUT_MS') or '15000')
local result = { steps = {} }
local started = vim.loop.hrtime()

local function write_result()
  local f = assert(io.open(os.getenv('INTENT_LS_RESULT'), 'w'))
  f:write(vim.fn.json_encode(result))
  f:close()
end

local function fail(msg)
  result.error = msg
  pcall(write_result)
  io.stderr:write('nvim_flow: ' .. msg .. '\n')
  vim.cmd('cquit! 1')
end

local function step(name)
  table.insert(result.steps, { name = name, ms = (vim.loop.hrtime() - started) / 1e6 })
end

local function wait_for(what, pred)
  local ok = vim.wait(TIMEOUT, pred, 10)
  if not ok then
    error('timed out after ' .. TIMEOUT .. ' ms waiting for ' .. what, 0)
  end
end

local function ours(bufnr)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == 'intent-ls' then
      table.insert(found, d)
    end
  end
  return found
end

local function has_code(bufnr, code)
  for _, d in ipairs(ours(bufnr)) do
    if d.code == code then
      return d
    end
  end
  return nil
end

local function describe(bufnr)
  local parts = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(parts, string.format('[%s %s line %d] %s', tostring(d.source), tostring(d.code), d.lnum + 1, d.message))
  end
  return table.concat(parts, '; ')
end

--- vim.diagnostic item -> LSP Diagnostic, for a codeAction request's context.
local function to_lsp(d)
  return {
    range = {
      start = { line = d.lnum, character = d.col },
      ['end'] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
    },
    severity = d.severity,
    message = d.message,
    source = d.source,
    code = d.code,
  }
end

local function code_action_titles(bufnr, client_id, diags, line)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = line, character = 0 }, ['end'] = { line = line, character = 0 } },
    context = { diagnostics = vim.tbl_map(to_lsp, diags) },
  }
  local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', params, TIMEOUT)
  local response = responses and responses[client_id]
  if not response then
    error('no codeAction response from intent-ls', 0)
  end
  if response.err then
    error('codeAction failed: ' .. vim.inspect(response.err), 0)
  end
  local titles = {}
  for _, action in ipairs(response.result or {}) do
    table.insert(titles, action.title)
  end
  return titles
end

local function edit_line(bufnr, line, suffix)
  local text = vim.api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1]
  vim.api.nvim_buf_set_lines(bufnr, line, line + 1, false, { text .. suffix })
end


local function lines_of(bufnr)
  return vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
end

local function find_line(bufnr, needle)
  for i, text in ipairs(lines_of(bufnr)) do
    if text:find(needle, 1, true) then
      return i - 1
    end
  end
  error('no line with ' .. needle, 0)
end

local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local data = f:read('*a')
  f:close()
  return data
end

local function write_file(path, data)
  local f = assert(io.open(path, 'wb'))
  f:write(data)
  f:close()
end

local function count_lines(path)
  local f = io.open(path, 'rb')
  if not f then
    return 0
  end
  local n = 0
  for _ in f:lines() do
    n = n + 1
  end
  f:close()
  return n
end

--- Runs the code action titled `title*` on `line` of the current window's buffer through
--- Neovim's own UI (vim.lsp.buf.code_action + vim.ui.select); returns the titles offered.
local function choose_action(line, prefix)
  local offered, chosen = {}, false
  vim.ui.select = function(items, _, on_choice)
    for _, item in ipairs(items) do
      local action = item.action or item[2]
      table.insert(offered, action.title)
      if action.title:sub(1, #prefix) == prefix then
        chosen = true
        return on_choice(item)
      end
    end
    on_choice(nil)
  end
  vim.api.nvim_win_set_cursor(0, { line + 1, 0 })
  vim.lsp.buf.code_action()
  wait_for('the code-action menu offering ' .. prefix, function()
    return #offered > 0
  end)
  if not chosen then
    error('no code action starting with ' .. prefix .. ' among ' .. vim.inspect(offered), 0)
  end
  return offered
end

--- The code actions the server offers for `diag` (raw LSP objects).
local function raw_actions(bufnr, client_id, diag)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = diag.lnum, character = 0 }, ['end'] = { line = diag.lnum, character = 0 } },
    context = { diagnostics = { to_lsp(diag) } },
  }
  local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', params, TIMEOUT)
  return (responses and responses[client_id] or {}).result or {}
end

local function save(bufnr)
  vim.api.nvim_buf_call(bufnr, function()
    vim.cmd('silent write')
  end)
end

local function plugin_clients(bufnr)
  local found = {}
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name == 'intent_ls' then
      table.insert(found, c)
    end
  end
  return found
end

local function run()
  local ws = assert(os.getenv('INTENT_LS_WS'), 'INTENT_LS_WS is not set')
  vim.cmd('filetype on')
  -- Every window/showMessage is recorded: an Error one (a rejected setting, a failed
  -- handler) fails the run.
  result.messages = {}
  vim.lsp.handlers['window/showMessage'] = function(_, params)
    table.insert(result.messages, params)
  end
  local plugin = dofile(assert(os.getenv('INTENT_LS_PLUGIN'), 'INTENT_LS_PLUGIN is not set'))
  plugin.setup({
    cmd = vim.fn.json_decode(os.getenv('INTENT_LS_CMD')),
    flags = { debounce_text_changes = 0 },
    -- Neovim 0.7 does not watch files for the server: it polls, quickly here.
    settings = { pollInterval = 0.1, analysisDelay = 0.02 },
  })
  vim.api.nvim_create_autocmd('User', {
    pattern = 'IntentLsStatus',
    callback = function()
      result.status_events = (result.status_events or 0) + 1
    end,
  })

  -- 1. Open src/auth/jwt.py: the plugin attaches through its BufReadPost autocmd.
  vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/src/auth/jwt.py'))
  local jwt = vim.api.nvim_get_current_buf()
  result.filetype = vim.bo[jwt].filetype
  local client
  wait_for('the intent-ls client to attach and initialize', function()
    client = plugin.client(jwt)
    return client ~= nil and client.initialized ~= false and vim.lsp.buf_is_attached(jwt, client.id)
  end)
  wait_for('the first intent/status notification', function()
    return plugin.status(jwt) ~= ''
  end)
  result.status_before = plugin.status(jwt)
  step('attached')

  -- 2. An edit without an active intent is flagged.
  edit_line(jwt, 2, '  # edited')
  wait_for('a no-active-intent diagnostic on jwt.py (have: ' .. describe(jwt) .. ')', function()
    return has_code(jwt, 'no-active-intent') ~= nil
  end)
  local diag = has_code(jwt, 'no-active-intent')
  result.no_active = { line = diag.lnum, message = diag.message, severity = diag.severity }
  step('no-active-intent')

  -- 3. Code actions offer the intent handshake.
  result.jwt_actions = code_action_titles(jwt, client.id, { diag }, diag.lnum)
  step('code actions listed')

  -- 4. Pick "Select intent INT-001" through Neovim's own code-action UI.
  local offered = {}
  vim.ui.select = function(items, opts, on_choice)
    for _, item in ipairs(items) do
      local action = item.action or item[2]
      table.insert(offered, action.title)
      if action.title:find('^Select intent INT%-001') then
        return on_choice(item)
      end
    end
    on_choice(nil)
  end
  vim.api.nvim_win_set_cursor(0, { diag.lnum + 1, 0 })
  vim.lsp.buf.code_action()
  wait_for('the no-active-intent diagnostic to clear after intent.select (have: ' .. describe(jwt) .. ')', function()
    return #offered > 0 and #ours(jwt) == 0
  end)
  result.ui_offered = offered
  wait_for('intent/status to report INT-001', function()
    return plugin.status(jwt):find('^INT%-001') ~= nil
  end)
  result.status_selected = plugin.status(jwt)
  step('selected via code action')

  -- 5. An edit outside INT-001's scope is flagged out-of-scope.
  vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/services/billing/main.go'))
  local go = vim.api.nvim_get_current_buf()
  result.go_filetype = vim.bo[go].filetype
  wait_for('the client to attach to main.go', function()
    return vim.lsp.buf_is_attached(go, client.id)
  end)
  edit_line(go, 0, ' // edited')
  wait_for('an out-of-scope diagnostic on main.go (have: ' .. describe(go) .. ')', function()
    return has_code(go, 'out-of-scope') ~= nil
  end)
  local oos = has_code(go, 'out-of-scope')
  result.out_of_scope = { line = oos.lnum, message = oos.message }
  result.go_actions = code_action_titles(go, client.id, { oos }, oos.lnum)
  step('out-of-scope')

  -- 5b. "Add … to INT-001's scope": Neovim applies the edit to the spec; saving it clears
  -- the diagnostic.
  local spec_path = ws .. '/.orchestration/active_intents.yaml'
  choose_action(oos.lnum, "Add services/billing/main.go to INT-001's scope")
  local spec = vim.fn.bufnr(spec_path)
  wait_for('the spec buffer to get the new scope line', function()
    return spec ~= -1 and vim.tbl_contains(lines_of(spec), '      - services/billing/main.go')
  end)
  save(spec)
  wait_for('the out-of-scope diagnostic to clear once the spec is saved (have: ' .. describe(go) .. ')', function()
    return has_code(go, 'out-of-scope') == nil
  end)
  result.spec_scope = vim.tbl_filter(function(l)
    return l:find('services/billing/main.go', 1, true) ~= nil
  end, vim.split(read_file(spec_path), '\n', true))
  step('added to scope')

  -- 6. :IntentClear goes through workspace/executeCommand; the status follows.
  vim.cmd('IntentClear')
  wait_for('intent/status to report no intent after :IntentClear', function()
    return plugin.status(go):find('^no intent') ~= nil
  end)
  result.status_cleared = plugin.status(go)
  step('cleared')

  -- 8. Destructive edit: restore it, then approve it, through the code-action UI.
  vim.cmd('IntentSelect INT-001')
  wait_for('INT-001 to be selected again', function()
    return plugin.status(jwt):find('^INT%-001') ~= nil
  end)
  vim.cmd('buffer ' .. jwt)
  local function delete_verify_token()
    local first = find_line(jwt, 'def verify_token')
    local last = find_line(jwt, 'def _mac')
    vim.api.nvim_buf_set_lines(jwt, first, last, false, {})
    wait_for('a destructive-edit diagnostic (have: ' .. describe(jwt) .. ')', function()
      return has_code(jwt, 'destructive-edit') ~= nil
    end)
    return has_code(jwt, 'destructive-edit')
  end
  local destroyed = delete_verify_token()
  result.destructive = destroyed.message
  choose_action(destroyed.lnum, 'Restore deleted code')
  wait_for('the restored method and no destructive-edit (have: ' .. describe(jwt) .. ')', function()
    return has_code(jwt, 'destructive-edit') == nil
      and pcall(find_line, jwt, '    def verify_token(self, token: str)')
  end)
  result.restored = lines_of(jwt)[find_line(jwt, 'def verify_token') + 2]
  step('destructive restored')
  destroyed = delete_verify_token()
  choose_action(destroyed.lnum, 'Approve destructive edit')
  wait_for('the approved destructive-edit to clear (have: ' .. describe(jwt) .. ')', function()
    return has_code(jwt, 'destructive-edit') == nil
  end)
  step('destructive approved')

  -- 9. Saving records a mutation in the ledger; hover shows the intent blame.
  local ledger = ws .. '/.orchestration/agent_trace.jsonl'
  local records_before = count_lines(ledger)
  save(jwt)
  wait_for('a new ledger record after :write', function()
    return count_lines(ledger) > records_before
  end)
  local last_record = vim.fn.json_decode(vim.split(vim.trim(read_file(ledger)), '\n', true)[count_lines(ledger)])
  result.record = {
    path = last_record.files[1].path,
    intent = last_record.metadata.intent_ls.intent_id,
    mutation_class = last_record.metadata.intent_ls.mutation_class,
  }
  step('saved and recorded')
  local hover_line = find_line(jwt, '# edited')
  local hovered
  wait_for('a hover with the intent blame', function()
    local responses = vim.lsp.buf_request_sync(jwt, 'textDocument/hover', {
      textDocument = { uri = vim.uri_from_bufnr(jwt) },
      position = { line = hover_line, character = 2 },
    }, TIMEOUT)
    local r = responses and responses[client.id] and responses[client.id].result
    hovered = r and r.contents and (r.contents.value or r.contents) or nil
    return type(hovered) == 'string' and hovered:find('INT-001', 1, true) ~= nil
  end)
  result.hover = hovered
  step('hover blame')

  -- 10. Stale file: someone changes it on disk under our edit. The reload edit is pinned
  -- to the buffer version: Neovim refuses it once the buffer moved on, and applies it
  -- through the code-action UI when current.
  edit_line(jwt, 0, '  # mine')
  local jwt_path = ws .. '/src/auth/jwt.py'
  local theirs = read_file(jwt_path):gsub('"""', '"""Theirs: ', 1)
  write_file(jwt_path, theirs)
  wait_for('a stale-file diagnostic (have: ' .. describe(jwt) .. ')', function()
    return has_code(jwt, 'stale-file') ~= nil
  end)
  local stale = has_code(jwt, 'stale-file')
  local reload
  for _, action in ipairs(raw_actions(jwt, client.id, stale)) do
    if action.title == 'Reload from disk' then
      reload = action
    end
  end
  if not reload or not reload.edit then
    error('no Reload from disk edit', 0)
  end
  result.reload_versioned = reload.edit.documentChanges ~= nil
    and reload.edit.documentChanges[1].textDocument.version ~= vim.NIL
  edit_line(jwt, 1, '  # typed after the action was computed')
  local typed = table.concat(lines_of(jwt), '\n')
  vim.lsp.util.apply_workspace_edit(reload.edit, client.offset_encoding)
  result.stale_edit_refused = table.concat(lines_of(jwt), '\n') == typed
  step('stale edit refused')
  wait_for('the stale-file diagnostic for the new version', function()
    return has_code(jwt, 'stale-file') ~= nil
  end)
  choose_action(has_code(jwt, 'stale-file').lnum, 'Reload from disk')
  wait_for('the buffer to hold the disk content', function()
    return table.concat(lines_of(jwt), '\n') .. '\n' == theirs
  end)
  wait_for('no diagnostics after reloading (have: ' .. describe(jwt) .. ')', function()
    return #ours(jwt) == 0
  end)
  step('reloaded from disk')

  -- 11. Every file of the governed tree, whatever its filetype; nothing outside it.
  write_file(ws .. '/NOTES', 'plain notes\n')
  vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/NOTES'))
  local notes = vim.api.nvim_get_current_buf()
  result.notes_filetype = vim.bo[notes].filetype
  result.notes_attached = vim.lsp.buf_is_attached(notes, client.id)
  local outside_dir = vim.fn.fnamemodify(ws, ':h') .. '/outside'
  vim.fn.mkdir(outside_dir, 'p')
  write_file(outside_dir .. '/x.py', 'x = 1\n')
  vim.cmd('edit ' .. vim.fn.fnameescape(outside_dir .. '/x.py'))
  result.outside_clients = #plugin_clients(vim.api.nvim_get_current_buf())
  step('scope of attachment')

  -- 7. Only one server process for the whole workspace.
  local count = 0
  for _, c in pairs(vim.lsp.get_active_clients()) do
    if c.name == 'intent_ls' then
      count = count + 1
    end
  end
  result.clients = count
  for _, m in ipairs(result.messages) do
    if m.type == 1 then
      error('the server showed an error: ' .. m.message, 0)
    end
  end
end

local ok, err = pcall(run)
if not ok then
  fail(tostring(err))
end
result.ok = true
write_result()
vim.lsp.stop_client(vim.lsp.get_active_clients())
vim.wait(3000, function()
  return #vim.lsp.get_active_clients() == 0
end, 10)
vim.cmd('qall!')

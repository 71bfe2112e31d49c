-- Drives editors/nvim/intent-ls.lua in a real headless Neovim against a copy of the
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

  -- 6. :IntentClear goes through workspace/executeCommand; the status follows.
  vim.cmd('IntentClear')
  wait_for('intent/status to report no intent after :IntentClear', function()
    return plugin.status(go):find('^no intent') ~= nil
  end)
  result.status_cleared = plugin.status(go)
  step('cleared')

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

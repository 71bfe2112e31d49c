-- intent-ls for Neovim (0.7 and later): attaches the intent-ls language server to every
-- buffer that has a file path in a governed tree (a directory holding
-- .orchestration/active_intents.yaml), whatever its filetype, beside any other servers.
--
--   vim.opt.runtimepath:append('/path/to/intent-ls/editors/nvim')   -- or a plugin manager
--   require('intent-ls').setup({})
--
-- Options (all optional):
--   cmd            server command             default { 'intent-ls', 'serve' }
--                  (when `intent-ls` is not on $PATH: { 'python3', '-m', 'intent_ls', 'serve' })
--   settings       the `intentLs` settings    e.g. { severity = { ['out-of-scope'] = 'warning' } }
--   start          'governed': only below a directory holding .orchestration/active_intents.yaml
--                  (that directory is the workspace folder); 'everywhere': every file, the
--                  root then being the first directory holding one of root_markers, else the
--                  current directory                               default 'governed'
--   root_markers   for start = 'everywhere'    default { '.orchestration/active_intents.yaml', '.git' }
--   on_attach      function(client, bufnr)
--   flags          passed to the client, e.g. { debounce_text_changes = 150 }
--   commands       define :IntentSelect and friends               default true
--
-- Neovim 0.11+ also gets `vim.lsp.config('intent_ls', ...)`, 0.8+ uses `vim.lsp.start`,
-- 0.7 uses `vim.lsp.start_client` + `vim.lsp.buf_attach_client`. Attaching is done by our
-- own autocmd in every version, because `vim.lsp.enable` only fires on FileType and
-- would miss files with no filetype.
--
-- Status: `require('intent-ls').status()` returns a short string for a statusline
-- ('INT-001 · ACTION_ALLOWED'); a `User IntentLsStatus` autocmd fires on each change.

local M = {}

local NAME = 'intent_ls'
local uv = vim.loop

M.options = nil
--- Latest `intent/status` payload per workspace folder URI.
M.statuses = {}
--- Client id per root directory (Neovim 0.7 path only).
local clients_by_root = {}

--- What makes a directory a governed workspace: the same rule in every intent-ls client.
local SPEC = '.orchestration/active_intents.yaml'

local defaults = {
  cmd = { 'intent-ls', 'serve' },
  settings = {},
  start = 'governed',
  root_markers = { SPEC, '.git' },
  on_attach = nil,
  flags = nil,
  commands = true,
}

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

local function dirname(path)
  return vim.fn.fnamemodify(path, ':h')
end

--- The directory holding one of `markers`, searched upwards from `start`; markers are
--- tried in order, so a governed directory wins over a `.git` further down.
local function find_root(start, markers)
  for _, marker in ipairs(markers) do
    local dir = start
    while dir and dir ~= '' do
      if exists(dir .. '/' .. marker) then
        return dir
      end
      local parent = dirname(dir)
      if parent == dir then
        break
      end
      dir = parent
    end
  end
  return nil
end

local function buffer_path(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return nil
  end
  if vim.api.nvim_buf_get_option(bufnr, 'buftype') ~= '' then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return nil
  end
  return vim.fn.fnamemodify(name, ':p')
end

local function root_for(path)
  local opts = M.options
  local start = dirname(path)
  if opts.start ~= 'everywhere' then
    return find_root(start, { SPEC })
  end
  return find_root(start, opts.root_markers) or vim.fn.getcwd()
end

local function fire_status_event()
  if vim.api.nvim_exec_autocmds then
    vim.api.nvim_exec_autocmds('User', { pattern = 'IntentLsStatus', modeline = false })
  else
    vim.cmd('silent doautocmd <nomodeline> User IntentLsStatus')
  end
end

local handlers = {
  ['intent/status'] = function(_, result)
    if type(result) == 'table' and result.folder then
      M.statuses[result.folder] = result
      M.last_folder = result.folder
      vim.schedule(fire_status_event)
    end
  end,
}

--- The `intentLs` settings as a JSON object: an empty Lua table would be sent as `[]`.
local function settings_object()
  local settings = M.options.settings
  if type(settings) ~= 'table' or next(settings) == nil then
    return vim.empty_dict()
  end
  return settings
end

--- Neovim applies versioned TextDocumentEdits (refusing one made for an older buffer
--- version) in every version, but 0.7 does not say so; saying it makes the server pin
--- its edits ("Reload from disk", "Restore deleted code", ...) to the buffer version.
local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.workspace = caps.workspace or {}
  caps.workspace.workspaceEdit = caps.workspace.workspaceEdit or {}
  caps.workspace.workspaceEdit.documentChanges = true
  return caps
end

local function client_config(root)
  local opts = M.options
  return {
    name = NAME,
    cmd = opts.cmd,
    capabilities = capabilities(),
    root_dir = root,
    workspace_folders = {
      { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') },
    },
    init_options = { intentLs = settings_object() },
    -- Answers the server's workspace/configuration requests for the `intentLs` section.
    settings = { intentLs = settings_object() },
    handlers = handlers,
    on_attach = opts.on_attach,
    flags = opts.flags,
  }
end

--- Attaches intent-ls to `bufnr` if it is a file buffer. Returns the client id or nil.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local path = buffer_path(bufnr)
  if not path then
    return nil
  end
  local root = root_for(path)
  if not root then
    return nil
  end
  local config = client_config(root)
  if vim.lsp.config and vim.lsp.start then
    -- 0.11+: register once so `:checkhealth lsp` and user overrides see it.
    if not M._registered then
      vim.lsp.config(NAME, { cmd = config.cmd })
      M._registered = true
    end
    config = vim.tbl_deep_extend('force', vim.lsp.config[NAME] or {}, config)
  end
  if vim.lsp.start then
    return vim.lsp.start(config, {
      bufnr = bufnr,
      reuse_client = function(client, conf)
        return client.name == conf.name and client.config.root_dir == conf.root_dir
      end,
    })
  end
  -- Neovim 0.7: one client per root, started on first use.
  local id = clients_by_root[root]
  if id and (not vim.lsp.get_client_by_id(id) or vim.lsp.client_is_stopped(id)) then
    id = nil
  end
  if not id then
    id = vim.lsp.start_client(config)
    if not id then
      return nil
    end
    clients_by_root[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

--- Clients named intent_ls, attached to `bufnr` when given (0.10+ has vim.lsp.get_clients).
local function our_clients(bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ name = NAME, bufnr = bufnr })
  end
  local found = {}
  local all = bufnr and vim.lsp.buf_get_clients(bufnr) or vim.lsp.get_active_clients()
  for _, client in pairs(all) do
    if client.name == NAME then
      table.insert(found, client)
    end
  end
  return found
end

--- The intent-ls client serving `bufnr` (current buffer by default), if any.
function M.client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  return our_clients(bufnr)[1] or our_clients(nil)[1]
end

--- Status payload for the current buffer's folder (or the one reported last).
function M.status_payload(bufnr)
  local path = buffer_path((bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr)
  if path then
    local uri = vim.uri_from_fname(path)
    local best
    for folder, status in pairs(M.statuses) do
      if uri:sub(1, #folder + 1) == folder .. '/' and (not best or #folder > #best.folder) then
        best = status
      end
    end
    if best then
      return best
    end
  end
  return M.last_folder and M.statuses[M.last_folder] or nil
end

--- A short string for a statusline: '' before the server reported anything.
function M.status(bufnr)
  local s = M.status_payload(bufnr)
  if not s then
    return ''
  end
  if not s.governed then
    return 'intent: not governed'
  end
  local id = (type(s.intent) == 'table' and s.intent.id) or 'no intent'
  return id .. ' · ' .. tostring(s.state)
end

--- Runs the server command `command` with `args`; calls `on_result(result)` on success.
function M.execute(command, args, on_result, bufnr)
  local client = M.client(bufnr)
  if not client then
    vim.notify('intent-ls: no server attached', vim.log.levels.ERROR)
    return
  end
  client.request('workspace/executeCommand', { command = command, arguments = args }, function(err, result)
    if err then
      vim.notify(tostring(err.message or err), vim.log.levels.ERROR)
      return
    end
    if on_result then
      on_result(result)
    end
  end, bufnr or vim.api.nvim_get_current_buf())
end

--- The current buffer's URI, telling the server which folder a command is for.
local function hint()
  local path = buffer_path(vim.api.nvim_get_current_buf())
  return path and { vim.uri_from_fname(path) } or {}
end

local function with_hint(args)
  local h = hint()
  if h[1] then
    table.insert(args, h[1])
  end
  return args
end

function M.select(id)
  if id and id ~= '' then
    M.execute('intent.select', with_hint({ id }), function(result)
      vim.notify('intent-ls: ' .. result.intent.id .. ' ' .. result.intent.name .. ' selected')
    end)
    return
  end
  M.execute('intent.list', hint(), function(intents)
    local choices = vim.tbl_filter(function(i)
      return i.selectable
    end, intents or {})
    if #choices == 0 then
      vim.notify('intent-ls: no IN_PROGRESS intent to select', vim.log.levels.WARN)
      return
    end
    vim.ui.select(choices, {
      prompt = 'Select the active intent:',
      format_item = function(i)
        return i.id .. ': ' .. i.name .. (i.active and ' (active)' or '')
      end,
    }, function(choice)
      if choice then
        M.select(choice.id)
      end
    end)
  end)
end

--- Moves intent `id` through its lifecycle (`intent.start` / `intent.complete`); the
--- server asks for confirmation and edits active_intents.yaml.
local function transition(command, verb)
  return function(id)
    if not id or id == '' then
      vim.notify('intent-ls: give the intent id, e.g. :Intent' .. verb .. ' INT-001', vim.log.levels.ERROR)
      return
    end
    M.execute(command, with_hint({ id }), function(result)
      if result.applied then
        vim.notify('intent-ls: ' .. result.intent .. ' is now ' .. result.status .. ' (save the spec)')
      else
        vim.notify('intent-ls: ' .. result.intent .. ' unchanged: ' .. tostring(result.reason))
      end
    end)
  end
end

M.start = transition('intent.start', 'Start')
M.complete = transition('intent.complete', 'Complete')

function M.clear()
  M.execute('intent.clear', hint(), function()
    vim.notify('intent-ls: active intent cleared')
  end)
end

--- Opens the active intent's context XML in a scratch buffer.
function M.context()
  M.execute('intent.context', hint(), function(result)
    vim.cmd('new')
    local buf = vim.api.nvim_get_current_buf()
    vim.api.nvim_buf_set_option(buf, 'buftype', 'nofile')
    vim.api.nvim_buf_set_option(buf, 'bufhidden', 'wipe')
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(result.context, '\n', true))
    vim.api.nvim_buf_set_option(buf, 'filetype', 'xml')
  end)
end

function M.list()
  M.execute('intent.list', hint(), function(intents)
    local lines = {}
    for _, i in ipairs(intents or {}) do
      table.insert(lines, string.format('%s%s [%s] %s', i.active and '* ' or '  ', i.id, i.status, i.name))
    end
    vim.notify(table.concat(lines, '\n'))
  end)
end

function M.record_lesson(text)
  local function send(t)
    if t and t:match('%S') then
      M.execute('intent.recordLesson', with_hint({ t }), function(result)
        vim.notify('intent-ls: lesson recorded for ' .. result.intent .. ' in ' .. result.path)
      end)
    end
  end
  if text and text ~= '' then
    send(text)
  else
    vim.ui.input({ prompt = 'Lesson for the active intent: ' }, send)
  end
end

local function define_commands()
  local cmd = vim.api.nvim_create_user_command
  if not cmd then
    return -- before 0.7: use the Lua functions directly
  end
  cmd('IntentSelect', function(o)
    M.select(o.args)
  end, { nargs = '?', desc = 'intent-ls: select the active intent (pick from a list without an id)' })
  cmd('IntentClear', function()
    M.clear()
  end, { desc = 'intent-ls: clear the active intent' })
  cmd('IntentContext', function()
    M.context()
  end, { desc = "intent-ls: show the active intent's context XML" })
  cmd('IntentList', function()
    M.list()
  end, { desc = 'intent-ls: list the intents' })
  cmd('IntentStart', function(o)
    M.start(o.args)
  end, { nargs = 1, desc = 'intent-ls: move a DRAFT intent to IN_PROGRESS' })
  cmd('IntentComplete', function(o)
    M.complete(o.args)
  end, { nargs = 1, desc = 'intent-ls: complete an intent (shows its acceptance criteria)' })
  cmd('IntentLesson', function(o)
    M.record_lesson(o.args)
  end, { nargs = '?', desc = 'intent-ls: record a lesson for the active intent' })
end

function M.setup(opts)
  M.options = vim.tbl_deep_extend('force', {}, defaults, opts or {})
  if opts and opts.cmd then
    M.options.cmd = opts.cmd -- lists are replaced, not merged
  end
  if opts and opts.root_markers then
    M.options.root_markers = opts.root_markers
  end
  if M.options.start ~= 'governed' and M.options.start ~= 'everywhere' then
    vim.notify(
      "intent-ls: start must be 'governed' or 'everywhere', not " .. vim.inspect(M.options.start)
        .. "; using 'governed'",
      vim.log.levels.ERROR
    )
    M.options.start = 'governed'
  end
  local group = vim.api.nvim_create_augroup('intent_ls', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'BufFilePost' }, {
    group = group,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      M.attach(bufnr)
    end
  end
  if M.options.commands then
    define_commands()
  end
  return M
end

return M

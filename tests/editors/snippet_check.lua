-- After the README's init.lua snippet ran: visit a governed file and wait for the server.
-- INTENT_LS_WS (workspace), INTENT_LS_RESULT (JSON written here).
local result = {}
local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('INTENT_LS_WS') .. '/src/auth/jwt.py'))
  local plugin = require('intent-ls')
  local attached = vim.wait(20000, function()
    return plugin.status() ~= ''
  end, 10)
  result.status = plugin.status()
  result.attached = attached
end)
result.ok = ok
result.error = ok and nil or tostring(err)
local f = assert(io.open(os.getenv('INTENT_LS_RESULT'), 'w'))
f:write(vim.fn.json_encode(result))
f:close()
vim.lsp.stop_client(vim.lsp.get_active_clients())
vim.wait(3000, function()
  return #vim.lsp.get_active_clients() == 0
end, 10)
vim.cmd(ok and 'qall!' or 'cquit! 1')

;;; intent-ls-lsp.el --- intent-ls as an lsp-mode add-on server  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (lsp-mode "8.0.0"))
;; Keywords: tools, languages

;;; Commentary:

;; intent-ls through lsp-mode, as an add-on server: it runs BESIDE the language servers
;; lsp-mode starts for a buffer (pylsp, gopls, ...), which eglot cannot do.
;;
;;   (add-to-list 'load-path "/path/to/intent-ls/editors/emacs")
;;   (require 'intent-ls-lsp)
;;   (intent-ls-lsp-setup)
;;
;; `intent-ls-lsp-setup' registers the client and starts lsp-mode (`lsp') for every file
;; visited below a directory holding `.orchestration/active_intents.yaml' (see
;; `intent-ls-auto-start'), whatever its major mode; that directory is added to the
;; lsp-mode session's folders, so no project-root question is asked.  Files Emacs has
;; no major mode for get `intent-ls-plain-mode'.  Quick fixes come through
;; `lsp-execute-code-action'; the commands are those of `intent-ls' (eglot) with an
;; `intent-ls-lsp-' prefix.

;;; Code:

(require 'cl-lib)
(require 'lsp-mode)
(require 'intent-ls-common)

(defconst intent-ls-lsp-server-id 'intent-ls
  "The lsp-mode server id of intent-ls.")

(defun intent-ls-lsp--activate-p (file-name _mode)
  "Whether intent-ls serves FILE-NAME (lsp-mode's activation function)."
  (and file-name
       (pcase intent-ls-auto-start
         ('governed (intent-ls-governed-root (file-name-directory file-name)))
         ('nil nil)
         (_ t))))

(defun intent-ls-lsp--plist (value &optional key)
  "VALUE (lsp-mode's JSON: hash tables, nil for false) as eglot-style plists.
KEY is the field VALUE came from: a false `governed' becomes :json-false."
  (cond ((hash-table-p value)
         (let (out)
           (maphash (lambda (k v)
                      (setq out (plist-put out (intern (concat ":" k))
                                           (intent-ls-lsp--plist v k))))
                    value)
           out))
        ((and (null value) (equal key "governed")) :json-false)
        (t value)))

(defun intent-ls-lsp--status (_workspace params)
  "Handle the `intent/status' notification PARAMS."
  (intent-ls-record-status (if (hash-table-p params) (intent-ls-lsp--plist params) params)))

(defun intent-ls-lsp--workspace ()
  "The intent-ls lsp-mode workspace of the current buffer, or an error."
  (or (cl-find-if (lambda (w) (eq (lsp--client-server-id (lsp--workspace-client w))
                                  intent-ls-lsp-server-id))
                  (lsp-workspaces))
      (user-error "intent-ls is not running for this buffer")))

(defun intent-ls-lsp-execute (command &rest arguments)
  "Run the server's COMMAND (a string such as \"intent.list\") with ARGUMENTS."
  (intent-ls-lsp--plist
   (with-lsp-workspace (intent-ls-lsp--workspace)
     (lsp-request "workspace/executeCommand"
                  (list :command command :arguments (vconcat arguments))))))

(defun intent-ls-lsp--hint ()
  "Arguments telling the server which folder a command is for."
  (and buffer-file-name (list (intent-ls-path-to-uri buffer-file-name))))

(defun intent-ls-lsp-select (id)
  "Make intent ID active; interactively, pick it from the server's list."
  (interactive
   (let* ((intents (apply #'intent-ls-lsp-execute "intent.list" (intent-ls-lsp--hint)))
          (choices (cl-loop for i across (vconcat intents)
                            when (plist-get i :selectable)
                            collect (cons (format "%s: %s" (plist-get i :id) (plist-get i :name))
                                          (plist-get i :id)))))
     (unless choices
       (user-error "intent-ls: no IN_PROGRESS intent to select"))
     (list (cdr (assoc (completing-read "Active intent: " choices nil t) choices)))))
  (apply #'intent-ls-lsp-execute "intent.select" id (intent-ls-lsp--hint)))

(defun intent-ls-lsp-clear ()
  "Clear the active intent."
  (interactive)
  (apply #'intent-ls-lsp-execute "intent.clear" (intent-ls-lsp--hint)))

(defun intent-ls-lsp--reload (command)
  "The client side of COMMAND `intent.reloadFromDisk' (an lsp-mode action handler)."
  (intent-ls-reload-from-disk (elt (lsp:command-arguments? command) 0)))

(defun intent-ls-lsp-mode-line ()
  "Mode-line text while intent-ls serves the buffer."
  (when (and (bound-and-true-p lsp-mode)
             (cl-some (lambda (w) (eq (lsp--client-server-id (lsp--workspace-client w))
                                      intent-ls-lsp-server-id))
                      (lsp-workspaces)))
    (intent-ls-status-text)))

(defun intent-ls-lsp-maybe-start ()
  "In `find-file-hook': start lsp-mode for a file intent-ls should serve."
  (when (intent-ls-wanted-p)
    (when-let ((root (intent-ls-governed-root)))
      ;; The governed tree is the workspace folder: known to this session (not saved).
      (cl-pushnew (lsp-f-canonical root) (lsp-session-folders (lsp-session)) :test #'equal))
    (lsp)))

;;;###autoload
(defun intent-ls-lsp-setup ()
  "Register intent-ls with lsp-mode and start it in governed trees."
  (interactive)
  (add-to-list 'lsp-language-id-configuration '(intent-ls-plain-mode . "plaintext"))
  (lsp-register-client
   (make-lsp-client
    :new-connection (lsp-stdio-connection (lambda () intent-ls-server-command))
    :activation-fn #'intent-ls-lsp--activate-p
    :add-on? t
    :priority -2
    :server-id intent-ls-lsp-server-id
    :initialization-options (lambda () (list :intentLs (intent-ls-settings-object)))
    :custom-capabilities `((experimental
                            . ((intentLs . ((clientCommands . ,intent-ls-client-commands))))))
    :action-handlers (let ((handlers (make-hash-table :test #'equal)))
                       (puthash intent-ls-reload-command #'intent-ls-lsp--reload handlers)
                       handlers)
    :notification-handlers (let ((handlers (make-hash-table :test #'equal)))
                             (puthash "intent/status" #'intent-ls-lsp--status handlers)
                             ;; Sent after each ledger record; lsp-mode would pop up a
                             ;; warning for a notification nobody handles.
                             (puthash "intent/recorded" #'ignore handlers)
                             handlers)))
  (add-hook 'find-file-hook #'intent-ls-plain-if-fundamental)
  (add-hook 'find-file-hook #'intent-ls-lsp-maybe-start t)
  (add-to-list 'mode-line-misc-info '(:eval (intent-ls-lsp-mode-line)) t))

(provide 'intent-ls-lsp)
;;; intent-ls-lsp.el ends here

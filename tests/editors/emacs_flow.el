;;; emacs_flow.el --- drives editors/emacs/intent-ls.el in Emacs batch + eglot  -*- lexical-binding: t; -*-

;; Run by test_emacs_client.py as `emacs --batch -l emacs_flow.el'.  Environment:
;; INTENT_LS_PLUGIN (intent-ls.el), INTENT_LS_WS (workspace copy), INTENT_LS_CMD (JSON
;; list: the server command), INTENT_LS_RESULT (JSON written here).  Every wait polls
;; `accept-process-output' for the expected state with a deadline; failures exit 1.

(require 'cl-lib)
(require 'json)
(require 'flymake)

(defvar flow-timeout (string-to-number (or (getenv "INTENT_LS_TIMEOUT") "15")))
(defvar flow-result (make-hash-table :test #'equal))
(defvar flow-start (float-time))
(defvar flow-steps nil)
(defvar flow-messages nil "window/showMessage params received.")
(defvar flow-did-open nil "URIs of the textDocument/didOpen notifications sent.")

(defun flow-put (key value) (puthash key value flow-result))

(defun flow-write ()
  (flow-put "steps" (vconcat (reverse flow-steps)))
  (with-temp-file (getenv "INTENT_LS_RESULT")
    (insert (json-encode flow-result))))

(defun flow-step (name)
  (push (list (cons "name" name) (cons "ms" (* 1000 (- (float-time) flow-start)))) flow-steps))

(defun flow-wait (what pred)
  "Poll PRED while processing server output; error after `flow-timeout' seconds."
  (let ((deadline (+ (float-time) flow-timeout)))
    (while (not (funcall pred))
      (when (> (float-time) deadline)
        (error "Timed out after %ss waiting for %s" flow-timeout
               (if (functionp what) (funcall what) what)))
      (accept-process-output nil 0.02))))

(defun flow-ours ()
  "The intent-ls flymake diagnostics of the current buffer, as (CODE LINE TEXT)."
  (cl-loop for d in (flymake-diagnostics)
           for lsp = (cdr (assoc 'eglot-lsp-diag (flymake-diagnostic-data d)))
           when (equal (plist-get lsp :source) "intent-ls")
           collect (list (plist-get lsp :code)
                         (line-number-at-pos (flymake-diagnostic-beg d))
                         (flymake-diagnostic-text d))))

(defun flow-describe ()
  (format "%S" (mapcar #'flymake-diagnostic-text (flymake-diagnostics))))

(defun flow-find (code)
  (cl-find code (flow-ours) :key #'car :test #'equal))

(defun flow-edit-line (line suffix)
  (goto-char (point-min))
  (forward-line (1- line))
  (end-of-line)
  (insert suffix)
  ;; Batch mode: eglot's idle timer never fires, so send the change and start flymake.
  (eglot--signal-textDocument/didChange)
  (flymake-start nil t))

(defun flow-titles (beg end)
  (mapcar (lambda (a) (plist-get a :title)) (eglot-code-actions beg end)))

(defun flow-run ()
  (let* ((ws (file-name-as-directory (getenv "INTENT_LS_WS")))
         (cmd (append (json-read-from-string (getenv "INTENT_LS_CMD")) nil))
         server jwt routes)
    (load (getenv "INTENT_LS_PLUGIN") nil t)
    (setq intent-ls-server-command cmd)
    ;; Record what the server shows and every didOpen the client sends.
    (cl-defmethod eglot-handle-notification
      ((_s intent-ls-server) (_m (eql window/showMessage)) &key type message)
      (push (list (cons "type" type) (cons "message" message)) flow-messages))
    (advice-add 'jsonrpc-notify :before
                (lambda (_conn method params)
                  (when (eq method :textDocument/didOpen)
                    (push (plist-get (plist-get params :textDocument) :uri) flow-did-open))))
    (intent-ls-setup)

    ;; 1. Visit src/auth/jwt.py; eglot-ensure connects on the next command loop turn.
    (find-file (expand-file-name "src/auth/jwt.py" ws))
    (setq jwt (current-buffer))
    (flow-put "jwt_mode" (symbol-name major-mode))
    (run-hooks 'post-command-hook)
    (flow-wait "eglot to manage jwt.py with intent-ls"
               (lambda () (and (bound-and-true-p eglot--managed-mode)
                               (intent-ls--server-p (eglot-current-server)))))
    (setq server (eglot-current-server))
    (flymake-start nil t)
    (flow-wait "the first intent/status notification" (lambda () (intent-ls-status)))
    (flow-put "mode_line_before" (intent-ls-mode-line))
    (flow-step "attached")

    ;; 2. An edit without an active intent gets a no-active-intent diagnostic.
    (flow-edit-line 3 "  # edited")
    (flow-wait (lambda () (concat "no-active-intent on jwt.py; have " (flow-describe)))
               (lambda () (flow-find "no-active-intent")))
    (let ((d (flow-find "no-active-intent")))
      (flow-put "no_active" (list (cons "line" (nth 1 d)) (cons "text" (nth 2 d)))))
    (flow-step "no-active-intent")

    ;; 3. Code actions on that line, listed, then picked the way a user does.
    (let* ((beg (line-beginning-position)) (end (line-end-position))
           offered)
      (flow-put "jwt_actions" (vconcat (flow-titles beg end)))
      (flow-step "code actions listed")
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (_prompt collection &rest _)
                   (setq offered (mapcar #'car collection))
                   (or (cl-find-if (lambda (title) (string-prefix-p "Select intent INT-001" title))
                                   offered)
                       (error "No 'Select intent INT-001' action in %S" offered)))))
        (let ((last-nonmenu-event ?\r))
          (eglot-code-actions beg end nil t)))
      (flow-put "ui_offered" (vconcat offered)))
    (flow-wait (lambda () (concat "the diagnostic to clear after intent.select; have "
                                  (flow-describe)))
               (lambda () (null (flow-ours))))
    (flow-wait "intent/status to report INT-001"
               (lambda () (equal (plist-get (plist-get (intent-ls-status) :intent) :id) "INT-001")))
    (flow-put "mode_line_selected" (intent-ls-mode-line))
    (flow-step "selected via code action")

    ;; 4. src/api/routes.py belongs to INT-002: editing it under INT-001 is out of scope.
    (find-file (expand-file-name "src/api/routes.py" ws))
    (setq routes (current-buffer))
    (run-hooks 'post-command-hook)
    (flow-wait "eglot to manage routes.py with the same server"
               (lambda () (and (bound-and-true-p eglot--managed-mode)
                               (eq (eglot-current-server) server))))
    (flymake-start nil t)
    (flow-edit-line 1 "  # edited")
    (flow-wait (lambda () (concat "out-of-scope on routes.py; have " (flow-describe)))
               (lambda () (flow-find "out-of-scope")))
    (let ((d (flow-find "out-of-scope")))
      (flow-put "out_of_scope" (list (cons "line" (nth 1 d)) (cons "text" (nth 2 d)))))
    (flow-put "routes_actions" (vconcat (flow-titles (line-beginning-position) (line-end-position))))
    (flow-step "out-of-scope")

    ;; 5. The package's own commands go through workspace/executeCommand.
    (flow-put "list" (vconcat (mapcar (lambda (i) (plist-get i :id)) (intent-ls-list))))
    (intent-ls-clear)
    (flow-wait "intent/status to report no intent"
               (lambda () (null (plist-get (intent-ls-status) :intent))))
    (flow-put "mode_line_cleared" (intent-ls-mode-line))
    (flow-step "cleared")

    (flow-put "did_open" (vconcat (reverse flow-did-open)))
    (flow-put "servers" (length (cl-remove-if-not
                                 #'intent-ls--server-p
                                 (apply #'append (hash-table-values eglot--servers-by-project)))))
    (flow-put "messages" (vconcat flow-messages))
    (dolist (m flow-messages)
      (when (eql (cdr (assoc "type" m)) 1)
        (error "The server showed an error: %s" (cdr (assoc "message" m)))))
    (ignore jwt routes)
    (eglot-shutdown server)))

(condition-case err
    (progn
      (flow-run)
      (flow-put "ok" t)
      (flow-write)
      (kill-emacs 0))
  (error
   (flow-put "error" (error-message-string err))
   (ignore-errors (flow-write))
   (princ (format "emacs_flow: %s\n" (error-message-string err)) #'external-debugging-output)
   (kill-emacs 1)))

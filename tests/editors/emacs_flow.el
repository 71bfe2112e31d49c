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
(defvar flow-questions nil "The yes/no questions Emacs asked in `flow-choose'.")


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
      (accept-process-output nil 0.02)
      ;; Emacs 28's jsonrpc throws out of its process filter when a synchronous
      ;; request's reply arrives, leaving the rest of that chunk (e.g. the diagnostics
      ;; published right after an intent.approve) unparsed until more output comes;
      ;; an idle server sends none, so nudge the filter as new output would.
      (dolist (proc (process-list))
        (when (process-get proc 'jsonrpc-connection)
          (jsonrpc--process-filter proc "")))
      ;; Batch mode: have flymake take what eglot holds (it re-reports the server's
      ;; latest diagnostics), as its idle timers would interactively.
      (when (bound-and-true-p flymake-mode)
        (flymake-start nil t)))))

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

(defun flow-choose (prefix &optional discard)
  "Run the code action starting with PREFIX on the current line through eglot's UI.
DISCARD answers Emacs's \"changed on disk; discard your edits?\" question."
  (let (offered)
    (cl-letf (((symbol-function 'completing-read)
               (lambda (_prompt collection &rest _)
                 (setq offered (mapcar (lambda (c) (if (consp c) (car c) c)) collection))
                 (or (cl-find-if (lambda (title) (string-prefix-p prefix title)) offered)
                     (error "No code action starting with %S in %S" prefix offered))))
              ((symbol-function 'y-or-n-p)
               (lambda (prompt &rest _) (push prompt flow-questions) t))
              ((symbol-function 'yes-or-no-p)
               (lambda (prompt &rest _) (push prompt flow-questions) discard)))
      ;; The line and its newline: flymake may put a diagnostic of an empty line there.
      (let ((last-nonmenu-event ?\r))
        (eglot-code-actions (line-beginning-position)
                            (min (point-max) (1+ (line-end-position))) nil t)))
    offered))

(defun flow-goto-line (line)
  (goto-char (point-min))
  (forward-line (1- line)))

(defun flow-line-of (needle)
  "The 1-based line of the first occurrence of NEEDLE in the current buffer."
  (save-excursion
    (goto-char (point-min))
    (unless (search-forward needle nil t)
      (error "No %S in %s" needle (buffer-name)))
    (line-number-at-pos)))

(defun flow-changed ()
  "Batch mode: send the change and run flymake (eglot's idle timer never fires)."
  (eglot--signal-textDocument/didChange)
  (flymake-start nil t))

(defun flow-file-lines (path)
  (if (file-exists-p path)
      (with-temp-buffer
        (insert-file-contents path)
        (count-lines (point-min) (point-max)))
    0))

(defun flow-read (path)
  (with-temp-buffer
    (insert-file-contents-literally path)
    (decode-coding-string (buffer-string) 'utf-8)))

(defun flow-titles (beg end)
  (mapcar (lambda (a) (plist-get a :title)) (eglot-code-actions beg end)))

(defun flow-run ()
  (let* ((ws (file-name-as-directory (getenv "INTENT_LS_WS")))
         (cmd (append (json-read-from-string (getenv "INTENT_LS_CMD")) nil))
         server jwt routes)
    (add-to-list 'load-path (file-name-directory (getenv "INTENT_LS_PLUGIN")))
    (load (getenv "INTENT_LS_PLUGIN") nil t)
    ;; The server polls the disk quickly here (batch Emacs delivers no file events).
    (setq intent-ls-settings '(:pollInterval 0.1 :analysisDelay 0.02))
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

    ;; 4b. "Add src/api/routes.py to INT-001's scope": eglot edits the spec (not visited
    ;; yet: it asks, we say yes); saving the spec clears the diagnostic.
    (let ((spec-path (expand-file-name ".orchestration/active_intents.yaml" ws)))
      (flow-choose "Add src/api/routes.py to INT-001's scope")
      (with-current-buffer (find-buffer-visiting spec-path)
        (flow-put "spec_mode" (symbol-name major-mode))
        (when (bound-and-true-p eglot--managed-mode)
          (eglot--signal-textDocument/didChange))
        (save-buffer))
      (flow-wait (lambda () (concat "out-of-scope to clear on routes.py; have " (flow-describe)))
                 (lambda () (null (flow-find "out-of-scope"))))
      (flow-put "spec_scope"
                (vconcat (cl-remove-if-not (lambda (l) (string-match-p "routes\\.py" l))
                                           (split-string (flow-read spec-path) "\n")))))
    (flow-step "added to scope")

    ;; 5. The package's own commands go through workspace/executeCommand.
    (flow-put "list" (vconcat (mapcar (lambda (i) (plist-get i :id)) (intent-ls-list))))
    (intent-ls-clear)
    (flow-wait "intent/status to report no intent"
               (lambda () (null (plist-get (intent-ls-status) :intent))))
    (flow-put "mode_line_cleared" (intent-ls-mode-line))
    (flow-step "cleared")

    ;; 6. Destructive edit: restore it, then approve it, through eglot's code actions.
    (intent-ls-select "INT-001")
    (switch-to-buffer jwt)
    (cl-flet ((delete-verify-token
               ()
               (let ((first (flow-line-of "    def verify_token"))
                     (last (flow-line-of "    def _mac")))
                 (flow-goto-line first)
                 (delete-region (point) (progn (forward-line (- last first)) (point)))
                 (flow-changed)
                 (flow-wait (lambda () (concat "destructive-edit; have " (flow-describe)))
                            (lambda () (flow-find "destructive-edit")))
                 (flow-find "destructive-edit"))))
      (let ((d (delete-verify-token)))
        (flow-put "destructive" (nth 2 d))
        (flow-goto-line (nth 1 d))
        (flow-choose "Restore deleted code")
        (flow-changed)
        (flow-wait (lambda () (concat "the restore to clear destructive-edit; have " (flow-describe)))
                   (lambda () (and (null (flow-find "destructive-edit"))
                                   (ignore-errors (flow-line-of "    def verify_token")))))
        (flow-step "destructive restored"))
      (let ((d (delete-verify-token)))
        (flow-goto-line (nth 1 d))
        (flow-choose "Approve destructive edit")
        (flow-wait (lambda () (concat "the approval to clear destructive-edit; have " (flow-describe)))
                   (lambda () (null (flow-find "destructive-edit"))))
        (flow-step "destructive approved")))

    ;; 7. Saving records a mutation in the ledger; hover shows the intent blame.
    (let* ((ledger (expand-file-name ".orchestration/agent_trace.jsonl" ws))
           (before (flow-file-lines ledger)))
      (save-buffer)
      (flow-wait "a new ledger record after save-buffer"
                 (lambda () (> (flow-file-lines ledger) before)))
      (let* ((last (car (last (split-string (string-trim (flow-read ledger)) "\n"))))
             (record (json-parse-string last :object-type 'plist)))
        (flow-put "record" (list (cons "path" (plist-get (aref (plist-get record :files) 0) :path))
                                 (cons "intent" (plist-get (plist-get (plist-get record :metadata) :intent_ls)
                                                           :intent_id))))))
    (flow-step "saved and recorded")
    (flow-goto-line (flow-line-of "# edited"))
    (let (hover)
      (flow-wait "a hover with the intent blame"
                 (lambda ()
                   (let ((r (jsonrpc-request server :textDocument/hover
                                             (eglot--TextDocumentPositionParams))))
                     (setq hover (and r (plist-get (plist-get r :contents) :value)))
                     (and hover (string-match-p "INT-001" hover)))))
      (flow-put "hover" hover))
    (flow-step "hover blame")

    ;; 8. Stale file: another process rewrites the file under an edit made here.  The
    ;; user picks "Reload from disk" and answers yes to anything Emacs asks (before the
    ;; fix: "changed on disk; discard your edits?", then a revert that re-opened the
    ;; document and an edit refused as `require version 1, you have 0').  The buffer
    ;; must end as the disk text, unmodified, with no error and no stale-file left;
    ;; twice, as the second reload starts from a document the first one re-opened.
    (let ((path (buffer-file-name jwt))
          (reloads nil))
      (dolist (tag '("Theirs:" "Again:"))
        (flow-edit-line 1 "  # mine")
        (let* ((text (flow-read path))
               (at (+ 3 (string-search "\"\"\"" text)))
               (theirs (concat (substring text 0 at) tag " " (substring text at))))
          (let ((coding-system-for-write 'utf-8-unix))
            (write-region theirs nil path nil 'silent))
          ;; What eglot's file watcher sends: batch Emacs runs no command loop, so
          ;; file-notify events are never delivered to it.
          (jsonrpc-notify server :workspace/didChangeWatchedFiles
                          `(:changes [(:uri ,(eglot--path-to-uri path) :type 2)]))
          (flow-wait (lambda () (concat "stale-file; have " (flow-describe)))
                     (lambda () (flow-find "stale-file")))
          (flow-goto-line (nth 1 (flow-find "stale-file")))
          (setq flow-questions nil)
          (let ((messages (with-current-buffer (messages-buffer) (point-max)))
                (error-text (condition-case err
                                (progn (flow-choose "Reload from disk" t) nil)
                              (error (error-message-string err)))))
            (flow-wait (lambda () (concat "stale-file to clear after reloading; have "
                                          (flow-describe)))
                       (lambda () (null (flow-find "stale-file"))))
            (push (list (cons "error" error-text)
                        (cons "questions" (vconcat flow-questions))
                        (cons "reloaded" (equal (buffer-string) theirs))
                        (cons "modified" (if (buffer-modified-p) t :json-false))
                        (cons "messages" (with-current-buffer (messages-buffer)
                                           (buffer-substring messages (point-max))))
                        (cons "diagnostics" (vconcat (mapcar #'car (flow-ours)))))
                  reloads)))
        (flow-step (concat "reloaded from disk: " tag)))
      (flow-put "reloads" (vconcat (reverse reloads))))

    ;; 10. Every file of the governed tree, whatever its mode; nothing outside it.
    (find-file (expand-file-name "web/src/orders.ts" ws))
    (run-hooks 'post-command-hook)
    (flow-put "ts_mode" (symbol-name major-mode))
    (flow-wait "eglot to manage the .ts file with intent-ls"
               (lambda () (and (bound-and-true-p eglot--managed-mode)
                               (eq (eglot-current-server) server))))
    (let ((outside (expand-file-name "../outside/x.py" ws)))
      (make-directory (file-name-directory outside) t)
      (write-region "x = 1\n" nil outside nil 'silent)
      (find-file outside)
      (run-hooks 'post-command-hook)
      (flow-put "outside_managed" (if (bound-and-true-p eglot--managed-mode) t :json-false)))
    (flow-step "scope of attachment")

    ;; 11. The lifecycle: completing INT-002 asks (showMessageRequest), then edits the
    ;; visited spec with a versioned edit.
    (switch-to-buffer routes)
    (let (asked)
      ;; eglot confirms server-initiated edits (`eglot-confirm-server-initiated-edits').
      (cl-letf (((symbol-function 'y-or-n-p) (lambda (&rest _) t))
                ((symbol-function 'completing-read)
                 (lambda (prompt collection &rest _)
                   (setq asked prompt)
                   (or (cl-find "Complete INT-002" (mapcar (lambda (c) (if (consp c) (car c) c)) collection)
                                :test #'equal)
                       (error "No Complete INT-002 in %S" collection)))))
        (let ((r (intent-ls-complete-intent "INT-002")))
          (flow-put "complete" (plist-get r :applied))
          (flow-put "complete_reason" (plist-get r :reason))))
      (flow-put "complete_asked" asked))
    (with-current-buffer (find-buffer-visiting (expand-file-name ".orchestration/active_intents.yaml" ws))
      (flow-put "spec_after_complete"
                (vconcat (cl-remove-if-not (lambda (l) (string-match-p "status: COMPLETED\\|updated_at" l))
                                           (split-string (buffer-string) "\n")))))
    (flow-step "completed INT-002")

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
   (dolist (b (buffer-list))
     (when (string-match-p "stderr\\|events" (buffer-name b))
       (flow-put (buffer-name b) (with-current-buffer b
                                   (let ((text (buffer-string)))
                                     (substring text (max 0 (- (length text) 8000))))))))
   (ignore-errors (flow-write))
   (princ (format "emacs_flow: %s\n" (error-message-string err)) #'external-debugging-output)
   (kill-emacs 1)))

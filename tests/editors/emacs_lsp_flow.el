;;; emacs_lsp_flow.el --- drives editors/emacs/intent-ls-lsp.el in Emacs batch + lsp-mode  -*- lexical-binding: t; -*-

;; Run by test_emacs_client.py as `emacs --batch -l emacs_lsp_flow.el'.  intent-ls runs
;; as an lsp-mode add-on beside pylsp in a Python buffer: the handshake through
;; lsp-mode's code actions, then a save that the ledger records.  Environment as for
;; emacs_flow.el.  Every wait polls `accept-process-output' with a deadline.

(require 'cl-lib)
(require 'json)

(defvar flow-timeout (string-to-number (or (getenv "INTENT_LS_TIMEOUT") "30")))
(defvar flow-result (make-hash-table :test #'equal))
(defvar flow-start (float-time))
(defvar flow-steps nil)

(defun flow-put (key value) (puthash key value flow-result))

(defun flow-write ()
  (flow-put "steps" (vconcat (reverse flow-steps)))
  (with-temp-file (getenv "INTENT_LS_RESULT")
    (insert (json-encode flow-result))))

(defun flow-step (name)
  (push (list (cons "name" name) (cons "ms" (* 1000 (- (float-time) flow-start)))) flow-steps))

(defun flow-wait (what pred)
  (let ((deadline (+ (float-time) flow-timeout)))
    (while (not (funcall pred))
      (when (> (float-time) deadline)
        (error "Timed out after %ss waiting for %s" flow-timeout
               (if (functionp what) (funcall what) what)))
      (accept-process-output nil 0.02))))

(defun flow-get (object key)
  "KEY of an lsp-mode JSON OBJECT (a hash table or a plist)."
  (if (hash-table-p object) (gethash key object) (plist-get object (intern (concat ":" key)))))

(defun flow-ours ()
  "The intent-ls diagnostics of the current buffer, as (CODE LINE)."
  (cl-loop for d in (lsp--get-buffer-diagnostics)
           when (equal (flow-get d "source") "intent-ls")
           collect (list (flow-get d "code")
                         (flow-get (flow-get (flow-get d "range") "start") "line"))))

(defun flow-servers ()
  "Server id -> status of the lsp-mode workspaces of the current buffer."
  (mapcar (lambda (w) (cons (symbol-name (lsp--client-server-id (lsp--workspace-client w)))
                            (symbol-name (lsp--workspace-status w))))
          (lsp-workspaces)))

(defun flow-ledger-lines (path)
  (if (file-exists-p path)
      (with-temp-buffer (insert-file-contents path) (count-lines (point-min) (point-max)))
    0))

(defun flow-run ()
  (let* ((ws (file-name-as-directory (getenv "INTENT_LS_WS")))
         (home (getenv "HOME"))
         (cmd (append (json-read-from-string (getenv "INTENT_LS_CMD")) nil))
         (ledger (expand-file-name ".orchestration/agent_trace.jsonl" ws)))
    (setq lsp-session-file (expand-file-name "lsp-session" home)
          lsp-keep-workspace-alive nil
          lsp-enable-snippet nil
          lsp-headerline-breadcrumb-enable nil
          ;; Batch Emacs loads no package autoloads: keep lsp-mode's optional UI off.
          lsp-modeline-workspace-status-enable nil
          lsp-modeline-code-actions-enable nil
          lsp-modeline-diagnostics-enable nil
          lsp-lens-enable nil
          lsp-diagnostics-provider :none)
    (add-to-list 'load-path (file-name-directory (getenv "INTENT_LS_PLUGIN")))
    (load (getenv "INTENT_LS_PLUGIN") nil t)
    (setq intent-ls-server-command cmd
          intent-ls-settings '(:pollInterval 0.1 :analysisDelay 0.02))
    (intent-ls-lsp-setup)

    ;; 1. Visit jwt.py: lsp-mode starts pylsp and, beside it, intent-ls.
    (find-file (expand-file-name "src/auth/jwt.py" ws))
    (flow-put "mode" (symbol-name major-mode))
    (flow-wait (lambda () (format "pylsp and intent-ls to initialize; have %S" (flow-servers)))
               (lambda () (let ((s (flow-servers)))
                            (and (equal (cdr (assoc "intent-ls" s)) "initialized")
                                 (equal (cdr (assoc "pylsp" s)) "initialized")))))
    (flow-put "servers" (flow-servers))
    (flow-wait "the first intent/status" (lambda () (intent-ls-status)))
    (flow-put "mode_line_before" (intent-ls-lsp-mode-line))
    (flow-step "attached beside pylsp")

    ;; 2. The handshake: an edit without an intent is flagged; its quick fix selects one.
    (goto-char (point-min))
    (forward-line 2)
    (end-of-line)
    (insert "  # edited")
    (flow-wait (lambda () (format "no-active-intent; have %S" (flow-ours)))
               (lambda () (assoc "no-active-intent" (flow-ours))))
    (flow-step "no-active-intent")
    (let* ((actions (append (lsp-code-actions-at-point) nil))
           (select (cl-find-if (lambda (a) (string-prefix-p "Select intent INT-001"
                                                            (flow-get a "title")))
                               actions)))
      (flow-put "actions" (vconcat (mapcar (lambda (a) (flow-get a "title")) actions)))
      (unless select
        (error "No 'Select intent INT-001' among %S" (mapcar (lambda (a) (flow-get a "title")) actions)))
      (lsp-execute-code-action select))
    (flow-wait (lambda () (format "the diagnostic to clear; have %S" (flow-ours)))
               (lambda () (null (flow-ours))))
    (flow-wait "intent/status to report INT-001"
               (lambda () (equal (plist-get (plist-get (intent-ls-status) :intent) :id) "INT-001")))
    (flow-put "mode_line_selected" (intent-ls-lsp-mode-line))
    (flow-step "selected via code action")

    ;; 3. Saving records the mutation in the ledger.
    (let ((before (flow-ledger-lines ledger)))
      (save-buffer)
      (flow-wait "a ledger record after save-buffer"
                 (lambda () (> (flow-ledger-lines ledger) before))))
    (let* ((last (car (last (split-string (string-trim
                                           (with-temp-buffer (insert-file-contents ledger)
                                                             (buffer-string)))
                                          "\n"))))
           (record (json-parse-string last :object-type 'plist)))
      (flow-put "record" (list (cons "path" (plist-get (aref (plist-get record :files) 0) :path))
                               (cons "intent" (plist-get (plist-get (plist-get record :metadata)
                                                                    :intent_ls)
                                                         :intent_id)))))
    (flow-put "servers_after" (flow-servers))
    (flow-step "saved and recorded")

    ;; 4. Another process rewrites the file under an edit made here; the user picks
    ;; "Reload from disk" and answers yes to anything Emacs asks.  The buffer must end as
    ;; the disk text, unmodified, with no error and no stale-file left.
    (let* ((path (buffer-file-name))
           (text (with-temp-buffer (insert-file-contents path) (buffer-string)))
           (at (+ 3 (string-search "\"\"\"" text)))
           (theirs (concat (substring text 0 at) "Theirs: " (substring text at)))
           (messages (with-current-buffer (messages-buffer) (point-max)))
           questions error-text)
      (goto-char (point-min))
      (end-of-line)
      (insert "  # mine")
      (let ((coding-system-for-write 'utf-8-unix))
        (write-region theirs nil path nil 'silent))
      ;; What lsp-mode's file watcher sends: batch Emacs delivers no file-notify events.
      (with-lsp-workspace (intent-ls-lsp--workspace)
        (lsp-notify "workspace/didChangeWatchedFiles"
                    `(:changes [(:uri ,(lsp--path-to-uri path) :type 2)])))
      (flow-wait (lambda () (format "stale-file; have %S" (flow-ours)))
                 (lambda () (assoc "stale-file" (flow-ours))))
      (goto-char (point-min))
      (forward-line (nth 1 (assoc "stale-file" (flow-ours))))
      (let* ((actions (append (lsp-code-actions-at-point) nil))
             (reload (cl-find "Reload from disk" actions
                              :key (lambda (a) (flow-get a "title")) :test #'equal)))
        (unless reload
          (error "No 'Reload from disk' among %S" (mapcar (lambda (a) (flow-get a "title")) actions)))
        (cl-letf (((symbol-function 'yes-or-no-p) (lambda (q &rest _) (push q questions) t))
                  ((symbol-function 'y-or-n-p) (lambda (q &rest _) (push q questions) t)))
          (setq error-text (condition-case err
                               (progn (lsp-execute-code-action reload) nil)
                             (error (error-message-string err))))))
      (flow-wait (lambda () (format "stale-file to clear after reloading; have %S" (flow-ours)))
                 (lambda () (not (assoc "stale-file" (flow-ours)))))
      (flow-put "reload" (list (cons "error" error-text)
                               (cons "questions" (vconcat questions))
                               (cons "reloaded" (equal (buffer-string) theirs))
                               (cons "modified" (if (buffer-modified-p) t :json-false))
                               (cons "messages" (with-current-buffer (messages-buffer)
                                                  (buffer-substring messages (point-max))))
                               (cons "diagnostics" (vconcat (mapcar #'car (flow-ours)))))))
    (flow-step "reloaded from disk")
    (flow-put "warnings" (with-current-buffer (messages-buffer)
                           (vconcat (cl-remove-if-not (lambda (l) (string-match-p "Warning" l))
                                                      (split-string (buffer-string) "\n")))))
    (lsp-workspace-shutdown (intent-ls-lsp--workspace))))

(condition-case err
    (progn
      (flow-run)
      (flow-put "ok" t)
      (flow-write)
      (kill-emacs 0))
  (error
   (flow-put "error" (error-message-string err))
   (dolist (b (buffer-list))
     (when (string-match-p "intent-ls::stderr" (buffer-name b))
       (flow-put "stderr" (with-current-buffer b (buffer-string)))))
   (when (get-buffer "*lsp-log*")
     (flow-put "lsp_log" (with-current-buffer "*lsp-log*"
                           (buffer-substring (max (point-min) (- (point-max) 3000)) (point-max)))))
   (ignore-errors (flow-write))
   (princ (format "emacs_lsp_flow: %s\n" (error-message-string err)) #'external-debugging-output)
   (kill-emacs 1)))

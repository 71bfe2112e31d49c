;;; eglot_plain_flow.el --- plain eglot, configured the usual way, no intent-ls client file  -*- lexical-binding: t; -*-

;; Run by test_emacs_client.py as `emacs --batch -l eglot_plain_flow.el'.  Environment:
;; INTENT_LS_WS (workspace copy, a git repository), INTENT_LS_CMD (JSON list: the server
;; command), INTENT_LS_RESULT (JSON written here).  The only configuration is what a
;; Helix, Zed, Kate or eglot user writes: the server program for the mode.  A buffer
;; edited here and rewritten on disk by another process gets `stale-file'; "Reload from
;; disk" must leave it equal to the disk with no error, whatever the user answers when
;; Emacs asks "changed on disk; discard your edits?".

(require 'cl-lib)
(require 'json)
(require 'flymake)
(require 'eglot)

(defvar flow-timeout (string-to-number (or (getenv "INTENT_LS_TIMEOUT") "15")))
(defvar flow-result (make-hash-table :test #'equal))
(defvar flow-questions nil "The questions Emacs asked while applying the code action.")

(defun flow-put (key value) (puthash key value flow-result))

(defun flow-write ()
  (with-temp-file (getenv "INTENT_LS_RESULT")
    (insert (json-encode flow-result))))

(defun flow-wait (what pred)
  "Poll PRED while processing server output; error after `flow-timeout' seconds."
  (let ((deadline (+ (float-time) flow-timeout)))
    (while (not (funcall pred))
      (when (> (float-time) deadline)
        (error "Timed out after %ss waiting for %s" flow-timeout
               (if (functionp what) (funcall what) what)))
      (accept-process-output nil 0.02)
      ;; Emacs 28's jsonrpc can leave the rest of a chunk unparsed after a synchronous
      ;; reply; nudge its filter as new output would (see emacs_flow.el).
      (dolist (proc (process-list))
        (when (process-get proc 'jsonrpc-connection)
          (jsonrpc--process-filter proc "")))
      ;; Batch mode runs no idle timers: have flymake take what eglot holds.
      (when (bound-and-true-p flymake-mode)
        (flymake-start nil t)))))

(defun flow-codes ()
  "The codes of the current buffer's intent-ls diagnostics, as flymake shows them."
  (cl-loop for d in (flymake-diagnostics)
           for lsp = (cdr (assoc 'eglot-lsp-diag (flymake-diagnostic-data d)))
           when (equal (plist-get lsp :source) "intent-ls")
           collect (plist-get lsp :code)))

(defun flow-stale-line ()
  "The 1-based line of the `stale-file' diagnostic, or nil."
  (cl-loop for d in (flymake-diagnostics)
           for lsp = (cdr (assoc 'eglot-lsp-diag (flymake-diagnostic-data d)))
           when (equal (plist-get lsp :code) "stale-file")
           return (line-number-at-pos (flymake-diagnostic-beg d))))

;; Editing an unmodified buffer whose file changed on disk makes Emacs ask "really edit
;; the buffer?" (in batch mode: an error); the user goes on.
(advice-add 'ask-user-about-supersession-threat :override
            (lambda (_filename) (push "really edit the buffer?" flow-questions) nil))

(defun flow-read (path)
  (with-temp-buffer
    (insert-file-contents-literally path)
    (decode-coding-string (buffer-string) 'utf-8)))

(defun flow-choose (prefix discard)
  "Run the code action starting with PREFIX on the current line through eglot's UI,
answering DISCARD to \"changed on disk; discard your edits?\" and yes to the rest."
  (cl-letf (((symbol-function 'completing-read)
             (lambda (_prompt collection &rest _)
               (let ((offered (mapcar (lambda (c) (if (consp c) (car c) c)) collection)))
                 (or (cl-find-if (lambda (title) (string-prefix-p prefix title)) offered)
                     (error "No code action starting with %S in %S" prefix offered)))))
            ((symbol-function 'y-or-n-p)
             (lambda (prompt &rest _) (push prompt flow-questions) t))
            ((symbol-function 'yes-or-no-p)
             (lambda (prompt &rest _) (push prompt flow-questions) discard)))
    (let ((last-nonmenu-event ?\r))
      (eglot-code-actions (line-beginning-position)
                          (min (point-max) (1+ (line-end-position))) nil t))))

(defun flow-reload (server path tag discard)
  "Edit line 1, have another process rewrite PATH, pick \"Reload from disk\"."
  (goto-char (point-min))
  (end-of-line)
  (insert "  # mine")
  (eglot--signal-textDocument/didChange)
  (let* ((text (flow-read path))
         (at (+ 3 (string-search "\"\"\"" text)))
         ;; More lines than the buffer: an edit pinned to the old buffer's end would
         ;; leave part of the reverted text behind.
         (theirs (concat (substring text 0 at) tag " " (substring text at) "# theirs\n# more\n")))
    (let ((coding-system-for-write 'utf-8-unix))
      (write-region theirs nil path nil 'silent))
    ;; What eglot's file watcher sends (batch Emacs never delivers file-notify events).
    (jsonrpc-notify server :workspace/didChangeWatchedFiles
                    `(:changes [(:uri ,(eglot--path-to-uri path) :type 2)]))
    (flow-wait (lambda () (format "stale-file; have %S" (flow-codes))) #'flow-stale-line)
    (goto-char (point-min))
    (forward-line (1- (flow-stale-line)))
    (setq flow-questions nil)
    (let ((messages (with-current-buffer (messages-buffer) (point-max)))
          (error-text (condition-case err
                          (progn (flow-choose "Reload from disk" discard) nil)
                        (error (error-message-string err)))))
      (eglot--signal-textDocument/didChange)
      (flow-wait (lambda () (format "stale-file to clear after reloading; have %S" (flow-codes)))
                 (lambda () (not (member "stale-file" (flow-codes)))))
      (list (cons "discard" (if discard t :json-false))
            (cons "error" error-text)
            (cons "questions" (vconcat flow-questions))
            (cons "reloaded" (equal (buffer-string) theirs))
            (cons "modified" (if (buffer-modified-p) t :json-false))
            (cons "messages" (with-current-buffer (messages-buffer)
                               (buffer-substring messages (point-max))))
            (cons "diagnostics" (vconcat (flow-codes)))))))

(defun flow-run ()
  (let* ((ws (file-name-as-directory (getenv "INTENT_LS_WS")))
         (cmd (append (json-read-from-string (getenv "INTENT_LS_CMD")) nil))
         (path (expand-file-name "src/auth/jwt.py" ws))
         server reloads)
    ;; The usual configuration, nothing else.
    (add-to-list 'eglot-server-programs `(python-mode . ,cmd))
    (add-hook 'python-mode-hook #'eglot-ensure)
    (find-file path)
    (run-hooks 'post-command-hook)  ; eglot-ensure connects on the next command loop turn
    (flow-wait "eglot to manage jwt.py"
               (lambda () (and (bound-and-true-p eglot--managed-mode) (eglot-current-server))))
    (setq server (eglot-current-server))
    (flow-put "capabilities_experimental"
              (or (plist-get (eglot-client-capabilities server) :experimental) :json-false))
    (flymake-start nil t)
    (eglot-execute-command server "intent.select" ["INT-001"])
    ;; Both answers to "discard your edits?", each from a buffer the last one left.
    (dolist (discard '(t nil t))
      (push (flow-reload server path (if discard "Discarded:" "Kept:") discard) reloads))
    (flow-put "reloads" (vconcat (reverse reloads)))
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
   (princ (format "eglot_plain_flow: %s\n" (error-message-string err)) #'external-debugging-output)
   (kill-emacs 1)))

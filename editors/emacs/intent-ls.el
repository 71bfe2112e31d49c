;;; intent-ls.el --- intent-ls language server through eglot  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (eglot "1.9"))
;; Keywords: tools, languages
;; URL: see the intent-ls repository, editors/emacs/

;;; Commentary:

;; Governs AI-assisted edits by declared intents: diagnostics, quick fixes and the
;; `intent.*' commands of the intent-ls server, through eglot.
;;
;;   (add-to-list 'load-path "/path/to/intent-ls/editors/emacs")
;;   (require 'intent-ls)
;;   (intent-ls-setup)
;;
;; `intent-ls-setup' makes eglot start intent-ls for every file buffer below a
;; directory holding `.orchestration/active_intents.yaml' (see `intent-ls-auto-start'),
;; whatever its major mode.  That directory is the eglot project root, so one server
;; serves the whole governed tree.  Files Emacs has no major mode for (fundamental-mode:
;; in a bare Emacs 28, .ts, .go, .md and .yaml files) get `intent-ls-plain-mode' there,
;; which eglot can manage.
;;
;; eglot runs ONE server per buffer: in a governed tree intent-ls is that server, so
;; buffers there do not get their usual eglot server (pyright, gopls, ...).  Outside
;; governed trees nothing changes (the entry is added to `eglot-server-programs'
;; buffer-locally).  To keep your language servers beside intent-ls, use lsp-mode and
;; `intent-ls-lsp' (an add-on client) instead.
;;
;; Commands: `intent-ls-select' (pick from `intent.list'), `intent-ls-clear',
;; `intent-ls-context' (XML in a buffer), `intent-ls-list', `intent-ls-record-lesson',
;; `intent-ls-start-intent' and `intent-ls-complete-intent' (the lifecycle).  Quick fixes
;; come through `eglot-code-actions'; "Reload from disk" reverts the buffer here
;; (`intent-ls-reload-from-disk') rather than taking an edit from the server.  The
;; `intent/status' notification is shown in the mode line (`intent-ls-mode-line') and
;; runs `intent-ls-status-functions'.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'project)
(require 'subr-x)
(require 'intent-ls-common)

(defcustom intent-ls-major-modes '(prog-mode text-mode conf-mode diff-mode intent-ls-plain-mode)
  "Major modes intent-ls manages through eglot, with every mode derived from them.
eglot matches a buffer's exact major mode against the modes of a
running server, so each mode actually used is added to this list
\(and to the running intent-ls servers) when a buffer first uses it.
In a governed tree any other mode is added the same way when a file
is visited in it.  Never add `fundamental-mode': a buffer passes
through it while its real mode is set up, and managing it makes
eglot send a second didOpen (such files get `intent-ls-plain-mode')."
  :type '(repeat symbol))

(defclass intent-ls-server (eglot-lsp-server) ()
  :documentation "An eglot server for intent-ls.")

(defun intent-ls--server-p (server)
  "Non-nil when SERVER is an intent-ls eglot server."
  (and server (object-of-class-p server 'intent-ls-server)))

(defun intent-ls--contact (&optional _interactive)
  "The eglot contact for intent-ls."
  (cons 'intent-ls-server intent-ls-server-command))

(defun intent-ls--project-find (dir)
  "For eglot (while `eglot-lsp-context' is set): the governed tree holding DIR."
  (when (bound-and-true-p eglot-lsp-context)
    (when-let ((root (intent-ls-governed-root dir)))
      (cons 'transient root))))

(defun intent-ls--managed-mode-p (mode)
  "Non-nil when MODE is one intent-ls may manage through eglot."
  (and mode (not (eq mode 'fundamental-mode))))

(defun intent-ls--entry ()
  "The `eglot-server-programs' entry for intent-ls."
  (cons intent-ls-major-modes #'intent-ls--contact))

(defun intent-ls--learn-mode (mode)
  "Add MODE to `intent-ls-major-modes' and to the running intent-ls servers."
  (unless (memq mode intent-ls-major-modes)
    (setq intent-ls-major-modes (append intent-ls-major-modes (list mode)))
    (dolist (servers (hash-table-values eglot--servers-by-project))
      (dolist (server servers)
        (when (intent-ls--server-p server)
          (setf (eglot--major-modes server)
                (append (eglot--major-modes server) (list mode))))))))

(defun intent-ls--wanted-p ()
  "Non-nil when intent-ls should manage the current buffer."
  (and (intent-ls--managed-mode-p major-mode) (intent-ls-wanted-p)))

(defun intent-ls--prepare-buffer ()
  "Point eglot at intent-ls in this buffer (a buffer-local server entry)."
  (intent-ls--learn-mode major-mode)
  (setq-local eglot-server-programs
              (cons (intent-ls--entry)
                    (cl-remove-if (lambda (e) (eq (cdr e) #'intent-ls--contact))
                                  (default-value 'eglot-server-programs)))))

(defun intent-ls-maybe-start ()
  "Start (or join) intent-ls for the current buffer when it is wanted."
  (when (intent-ls--wanted-p)
    (intent-ls--prepare-buffer)
    (eglot-ensure)))

;;;###autoload
(defun intent-ls-setup ()
  "Use intent-ls, through eglot, for file buffers in governed trees."
  (interactive)
  (add-hook 'project-find-functions #'intent-ls--project-find)
  ;; A visited file's mode is final in `find-file-hook': fundamental-mode files become
  ;; `intent-ls-plain-mode' there; `after-change-major-mode-hook' covers both that and a
  ;; later change of mode.  `eglot-ensure' leaves an already managed buffer alone.
  (add-hook 'find-file-hook #'intent-ls-plain-if-fundamental)
  (add-hook 'after-change-major-mode-hook #'intent-ls-maybe-start)
  (add-to-list 'mode-line-misc-info '(:eval (intent-ls-mode-line)) t)
  (dolist (buffer (buffer-list))
    (with-current-buffer buffer
      (when buffer-file-name
        (intent-ls-plain-if-fundamental)
        (intent-ls-maybe-start)))))

;;; Settings

(cl-defmethod eglot-initialization-options ((_server intent-ls-server))
  "Sends `intent-ls-settings' under `intentLs'."
  (list :intentLs (intent-ls-settings-object)))

;;; Commands run here

(cl-defmethod eglot-client-capabilities ((_server intent-ls-server))
  "Announces `intent-ls-client-commands', the commands this client runs itself."
  (let ((capabilities (cl-call-next-method)))
    (plist-put capabilities :experimental
               (list :intentLs (list :clientCommands intent-ls-client-commands)))))

(cl-defmethod eglot-execute-command
  ((_server intent-ls-server) (_command (eql intent.reloadFromDisk)) arguments)
  "Reverts the buffer of the URI in ARGUMENTS (eglot before `eglot-execute')."
  (intent-ls-reload-from-disk (elt arguments 0)))

(when (fboundp 'eglot-execute)
  ;; Newer eglot (Emacs 30's) runs code actions and commands through `eglot-execute'
  ;; instead; a code action's command comes back here as a Command.
  (cl-defmethod eglot-execute ((_server intent-ls-server) action)
    "Runs `intent-ls-reload-command' here, anything else as eglot does."
    (if (equal (plist-get action :command) intent-ls-reload-command)
        (intent-ls-reload-from-disk (elt (plist-get action :arguments) 0))
      (cl-call-next-method))))

;;; Status

(cl-defmethod eglot-handle-notification
  ((_server intent-ls-server) (_method (eql intent/status)) &rest params)
  "Records the `intent/status' payload PARAMS and updates the mode line."
  (intent-ls-record-status params))

(defun intent-ls-mode-line ()
  "Mode-line text: the active intent and the turn state."
  (when-let ((server (and (bound-and-true-p eglot--managed-mode) (eglot-current-server))))
    (when (intent-ls--server-p server)
      (intent-ls-status-text))))

;;; Commands

(defun intent-ls--server ()
  "The intent-ls server of the current buffer, or an error."
  (let ((server (eglot-current-server)))
    (unless (intent-ls--server-p server)
      (user-error "intent-ls is not running for this buffer"))
    server))

(defun intent-ls--hint ()
  "Arguments telling the server which folder a command is for."
  (and buffer-file-name (list (eglot--path-to-uri buffer-file-name))))

(defun intent-ls-execute (command &rest arguments)
  "Run the server's COMMAND (a string such as \"intent.list\") with ARGUMENTS."
  (jsonrpc-request (intent-ls--server) :workspace/executeCommand
                   `(:command ,command :arguments ,(vconcat arguments))))

(defun intent-ls-select (id)
  "Make intent ID active; interactively, pick it from the server's list."
  (interactive
   (let* ((intents (append (apply #'intent-ls-execute "intent.list" (intent-ls--hint)) nil))
          (choices (cl-loop for i in intents
                            unless (eq (plist-get i :selectable) :json-false)
                            collect (cons (format "%s: %s" (plist-get i :id) (plist-get i :name))
                                          (plist-get i :id)))))
     (unless choices
       (user-error "intent-ls: no IN_PROGRESS intent to select"))
     (list (cdr (assoc (completing-read "Active intent: " choices nil t) choices)))))
  (let ((result (apply #'intent-ls-execute "intent.select" id (intent-ls--hint))))
    (message "intent-ls: %s %s selected"
             (plist-get (plist-get result :intent) :id)
             (plist-get (plist-get result :intent) :name))
    result))

(defun intent-ls-clear ()
  "Clear the active intent."
  (interactive)
  (prog1 (apply #'intent-ls-execute "intent.clear" (intent-ls--hint))
    (message "intent-ls: active intent cleared")))

(defun intent-ls-context ()
  "Show the active intent's context XML."
  (interactive)
  (let ((result (apply #'intent-ls-execute "intent.context" (intent-ls--hint))))
    (with-current-buffer (get-buffer-create "*intent-ls context*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (plist-get result :context))
        (goto-char (point-min))
        (when (fboundp 'nxml-mode) (delay-mode-hooks (nxml-mode)))
        (setq buffer-read-only t))
      (display-buffer (current-buffer)))
    result))

(defun intent-ls-list ()
  "Show the intents of the spec."
  (interactive)
  (let ((intents (append (apply #'intent-ls-execute "intent.list" (intent-ls--hint)) nil)))
    (message "%s"
             (mapconcat (lambda (i)
                          (format "%s%s [%s] %s"
                                  (if (eq (plist-get i :active) t) "* " "  ")
                                  (plist-get i :id) (plist-get i :status) (plist-get i :name)))
                        intents "\n"))
    intents))

(defun intent-ls-record-lesson (text)
  "Record TEXT as a lesson for the active intent."
  (interactive "sLesson for the active intent: ")
  (when (string-blank-p text)
    (user-error "intent-ls: the lesson is empty"))
  (let ((result (apply #'intent-ls-execute "intent.recordLesson" text (intent-ls--hint))))
    (message "intent-ls: lesson recorded for %s in %s"
             (plist-get result :intent) (plist-get result :path))
    result))

(defun intent-ls--transition (command id)
  "Run the lifecycle COMMAND (`intent.start' or `intent.complete') on intent ID."
  (let ((result (apply #'intent-ls-execute command id (intent-ls--hint))))
    (if (eq (plist-get result :applied) t)
        (message "intent-ls: %s is now %s (save the spec)"
                 (plist-get result :intent) (plist-get result :status))
      (message "intent-ls: %s unchanged: %s"
               (plist-get result :intent) (plist-get result :reason)))
    result))

(defun intent-ls--read-intent (prompt status)
  "Read an intent id with PROMPT among the intents whose status is in STATUS."
  (let ((ids (cl-loop for i across (apply #'intent-ls-execute "intent.list" (intent-ls--hint))
                      when (member (plist-get i :status) status)
                      collect (plist-get i :id))))
    (unless ids
      (user-error "intent-ls: no intent is %s" (string-join status " or ")))
    (completing-read prompt ids nil t)))

(defun intent-ls-start-intent (id)
  "Move the DRAFT intent ID to IN_PROGRESS (an edit of the spec)."
  (interactive (list (intent-ls--read-intent "Start intent: " '("DRAFT"))))
  (intent-ls--transition "intent.start" id))

(defun intent-ls-complete-intent (id)
  "Complete intent ID: the server shows its acceptance criteria and asks first."
  (interactive (list (intent-ls--read-intent "Complete intent: " '("IN_PROGRESS" "BLOCKED"))))
  (intent-ls--transition "intent.complete" id))

(provide 'intent-ls)
;;; intent-ls.el ends here

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
;; `intent-ls-setup' makes eglot start intent-ls for file buffers whose major mode
;; derives from one of `intent-ls-major-modes' (prog-mode, text-mode, conf-mode,
;; diff-mode) below a directory holding `.orchestration/' (see
;; `intent-ls-auto-start').  That directory is the eglot project root, so one server
;; serves the whole governed tree.
;;
;; eglot runs one server per buffer: in a governed tree intent-ls is that server, and
;; buffers there do not get their usual language server from eglot.  Outside governed
;; trees nothing changes (the entry is added to `eglot-server-programs' buffer-locally).
;;
;; `fundamental-mode' is never managed: a buffer passes through it while its real major
;; mode is set up, and managing it made eglot send a second textDocument/didOpen.
;;
;; Commands: `intent-ls-select' (pick from `intent.list'), `intent-ls-clear',
;; `intent-ls-context' (XML in a buffer), `intent-ls-list', `intent-ls-record-lesson'.
;; Quick fixes come through `eglot-code-actions'.  The `intent/status' notification is
;; shown in the mode line (`intent-ls-mode-line') and runs `intent-ls-status-functions'.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'project)
(require 'subr-x)

(defgroup intent-ls nil
  "Intent-driven governance of AI-assisted edits (intent-ls language server)."
  :group 'tools
  :prefix "intent-ls-")

(defcustom intent-ls-server-command '("intent-ls" "serve")
  "Command line that starts the server.
When `intent-ls' is not on `exec-path', use for instance
\\='(\"python3\" \"-m\" \"intent_ls\" \"serve\") or a virtualenv's python."
  :type '(repeat string))

(defcustom intent-ls-settings nil
  "The `intentLs' settings, as a plist sent in initializationOptions.
Example: \\='(:severity (:out-of-scope \"warning\") :extraIgnores [\"*.gen.go\"]).
A directory-local `eglot-workspace-configuration' with an `:intentLs' section
overrides it for one project."
  :type 'plist)

(defcustom intent-ls-auto-start 'governed
  "When to start intent-ls for a file buffer.
`governed': below a directory holding `.orchestration/'; t: any file buffer in a
managed mode; nil: never (use \\[eglot] yourself)."
  :type '(choice (const :tag "Governed trees only" governed)
                 (const :tag "Every file" t)
                 (const :tag "Never" nil)))

(defcustom intent-ls-major-modes '(prog-mode text-mode conf-mode diff-mode)
  "Major modes intent-ls manages, with every mode derived from them.
eglot matches a buffer's exact major mode against the modes of a
running server, so each mode actually used is added to this list
\(and to the running intent-ls servers) when a buffer first uses it.
Add here modes that derive from none of these.  Never add
`fundamental-mode': a buffer passes through it while its real major
mode is set up, and managing it makes eglot send a second didOpen."
  :type '(repeat symbol))

(defvar intent-ls-status-functions nil
  "Abnormal hook run with each `intent/status' payload (a plist).")

(defvar intent-ls--statuses (make-hash-table :test #'equal)
  "The latest `intent/status' payload per workspace folder URI.")

(defvar intent-ls--last-folder nil
  "The folder URI of the latest `intent/status' notification.")

(defclass intent-ls-server (eglot-lsp-server) ()
  :documentation "An eglot server for intent-ls.")

(defun intent-ls--server-p (server)
  "Non-nil when SERVER is an intent-ls eglot server."
  (and server (object-of-class-p server 'intent-ls-server)))

(defun intent-ls--contact (&optional _interactive)
  "The eglot contact for intent-ls."
  (cons 'intent-ls-server intent-ls-server-command))

(defun intent-ls--governed-root (&optional dir)
  "The nearest directory at or above DIR holding `.orchestration/', or nil."
  (when-let ((root (locate-dominating-file
                    (or dir default-directory)
                    (lambda (d) (file-directory-p (expand-file-name ".orchestration" d))))))
    (file-name-as-directory (expand-file-name root))))

(defun intent-ls--project-find (dir)
  "For eglot (while `eglot-lsp-context' is set): the governed tree holding DIR."
  (when (bound-and-true-p eglot-lsp-context)
    (when-let ((root (intent-ls--governed-root dir)))
      (cons 'transient root))))

(defun intent-ls--managed-mode-p (mode)
  "Non-nil when MODE is one intent-ls may manage."
  (and mode
       (not (eq mode 'fundamental-mode))
       (apply #'provided-mode-derived-p mode
              (remq 'fundamental-mode intent-ls-major-modes))))

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
  (and buffer-file-name
       (intent-ls--managed-mode-p major-mode)
       (pcase intent-ls-auto-start
         ('governed (intent-ls--governed-root))
         ('nil nil)
         (_ t))))

(defun intent-ls--prepare-buffer ()
  "Point eglot at intent-ls in this buffer (a buffer-local server entry)."
  (intent-ls--learn-mode major-mode)
  (setq-local eglot-server-programs
              (cons (intent-ls--entry)
                    (cl-remove-if (lambda (e) (eq (cdr e) #'intent-ls--contact))
                                  (default-value 'eglot-server-programs)))))

(defun intent-ls-maybe-start ()
  "Start (or join) intent-ls for the current buffer when `intent-ls--wanted-p'."
  (when (intent-ls--wanted-p)
    (intent-ls--prepare-buffer)
    (eglot-ensure)))

;;;###autoload
(defun intent-ls-setup ()
  "Use intent-ls, through eglot, for file buffers in governed trees."
  (interactive)
  (add-hook 'project-find-functions #'intent-ls--project-find)
  ;; `after-change-major-mode-hook' covers both visiting a file and changing mode; a
  ;; buffer already managed by eglot is left alone by `eglot-ensure'.
  (add-hook 'after-change-major-mode-hook #'intent-ls-maybe-start)
  (add-to-list 'mode-line-misc-info '(:eval (intent-ls-mode-line)) t)
  (dolist (buffer (buffer-list))
    (with-current-buffer buffer
      (intent-ls-maybe-start))))

;;; Settings

(cl-defmethod eglot-initialization-options ((_server intent-ls-server))
  "Sends `intent-ls-settings' under `intentLs'."
  (list :intentLs (or intent-ls-settings eglot--{})))

;;; Status

(cl-defmethod eglot-handle-notification
  ((_server intent-ls-server) (_method (eql intent/status)) &rest params)
  "Records the `intent/status' payload PARAMS and updates the mode line."
  (let ((folder (plist-get params :folder)))
    (when folder
      (puthash folder params intent-ls--statuses)
      (setq intent-ls--last-folder folder)
      (run-hook-with-args 'intent-ls-status-functions params)
      (force-mode-line-update t))))

(defun intent-ls-status (&optional buffer)
  "The latest `intent/status' payload (a plist) for BUFFER's folder, or nil."
  (with-current-buffer (or buffer (current-buffer))
    (let ((uri (and buffer-file-name (eglot--path-to-uri buffer-file-name)))
          best)
      (when uri
        (maphash (lambda (folder status)
                   (when (and (string-prefix-p (concat (string-remove-suffix "/" folder) "/") uri)
                              (or (null best)
                                  (> (length folder) (length (plist-get best :folder)))))
                     (setq best status)))
                 intent-ls--statuses))
      (or best (and intent-ls--last-folder
                    (gethash intent-ls--last-folder intent-ls--statuses))))))

(defun intent-ls-mode-line ()
  "Mode-line text: the active intent and the turn state."
  (when-let ((server (and (bound-and-true-p eglot--managed-mode) (eglot-current-server))))
    (when (intent-ls--server-p server)
      (let ((status (intent-ls-status)))
        (cond ((null status) " [intent]")
              ((eq (plist-get status :governed) :json-false) " [intent: not governed]")
              (t (let ((intent (plist-get status :intent)))
                   (format " [%s %s]"
                           (if intent (plist-get intent :id) "no intent")
                           (plist-get status :state)))))))))

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

(provide 'intent-ls)
;;; intent-ls.el ends here

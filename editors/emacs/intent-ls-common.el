;;; intent-ls-common.el --- what the intent-ls clients for eglot and lsp-mode share  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1"))
;; Keywords: tools, languages

;;; Commentary:

;; Settings, where intent-ls starts, the mode for files Emacs has no mode for, and the
;; `intent/status' bookkeeping, shared by `intent-ls' (eglot) and `intent-ls-lsp'
;; (lsp-mode).  Load one of those, not this file alone.
;;
;; Where intent-ls starts is the same rule in every intent-ls client: in a directory
;; holding `.orchestration/active_intents.yaml' (a governed tree, whose root is the
;; workspace folder), for every file below it whatever its mode; with
;; `intent-ls-auto-start' set to t, in every file buffer.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'url-util)

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
Example: \\='(:severity (:out-of-scope \"warning\") :extraIgnores [\"*.gen.go\"])."
  :type 'plist)

(defcustom intent-ls-auto-start 'governed
  "When to start intent-ls for a file buffer.
`governed': below a directory holding `.orchestration/active_intents.yaml';
t: in every file buffer; nil: never (start it yourself)."
  :type '(choice (const :tag "Governed trees only" governed)
                 (const :tag "Every file" t)
                 (const :tag "Never" nil)))

(defconst intent-ls-spec-relpath ".orchestration/active_intents.yaml"
  "The file that makes a directory a governed tree.")

(defvar intent-ls-status-functions nil
  "Abnormal hook run with each `intent/status' payload (a plist).")

(defvar intent-ls--statuses (make-hash-table :test #'equal)
  "The latest `intent/status' payload per workspace folder URI.")

(defvar intent-ls--last-folder nil
  "The folder URI of the latest `intent/status' notification.")

(defun intent-ls-governed-root (&optional dir)
  "The nearest directory at or above DIR holding the intent spec, or nil."
  (when-let ((root (locate-dominating-file
                    (or dir default-directory)
                    (lambda (d) (file-regular-p (expand-file-name intent-ls-spec-relpath d))))))
    (file-name-as-directory (expand-file-name root))))

(defun intent-ls-wanted-p ()
  "Non-nil when intent-ls should serve the current buffer."
  (and buffer-file-name
       (pcase intent-ls-auto-start
         ('governed (intent-ls-governed-root))
         ('nil nil)
         (_ t))))

(define-derived-mode intent-ls-plain-mode fundamental-mode "Plain"
  "A mode for files Emacs has no major mode for, so that a language client can manage
them: eglot and lsp-mode cannot serve `fundamental-mode', which every buffer passes
through while its real mode is set up.")

(defun intent-ls-plain-if-fundamental ()
  "In `find-file-hook' (the mode is final): give fundamental-mode files in governed
trees `intent-ls-plain-mode', which the clients can serve."
  (when (and (eq major-mode 'fundamental-mode) (intent-ls-wanted-p))
    (intent-ls-plain-mode)))

(defun intent-ls-path-to-uri (path)
  "The file URI of PATH, as the server spells it."
  (concat "file://" (url-hexify-string (file-truename path) url-path-allowed-chars)))

(defconst intent-ls-reload-command "intent.reloadFromDisk"
  "The command of the \"Reload from disk\" quick fix, run by the client.")

(defconst intent-ls-client-commands (vector intent-ls-reload-command)
  "Commands the clients run themselves.
They are announced to the server in the client capabilities, under
`experimental.intentLs.clientCommands'; the server then offers them in
code actions instead of an edit.")

(defun intent-ls-uri-to-path (uri)
  "The local file name of the file URI URI, or nil for another scheme."
  (let ((url (url-generic-parse-url uri)))
    (when (equal (url-type url) "file")
      (decode-coding-string (url-unhex-string (url-filename url)) 'utf-8))))

(defun intent-ls-reload-from-disk (uri)
  "Revert the buffer visiting URI from its file (\"Reload from disk\").
A server edit replacing the text would make Emacs ask whether to
discard the buffer's edits; answering yes reverts the buffer, and the
edit, made for the old buffer version, is then refused with an error.
Picking the fix is the answer: the buffer is reverted without a
question, and the language client re-syncs it with the server."
  (let* ((path (intent-ls-uri-to-path uri))
         (buffer (and path (find-buffer-visiting path))))
    (unless buffer
      (user-error "intent-ls: no buffer visits %s" uri))
    (with-current-buffer buffer
      (revert-buffer t t t))
    (message "intent-ls: %s reloaded from disk" (buffer-name buffer))))

(defun intent-ls-record-status (params)
  "Keep the `intent/status' payload PARAMS (a plist) and tell the listeners."
  (let ((folder (plist-get params :folder)))
    (when folder
      (puthash folder params intent-ls--statuses)
      (setq intent-ls--last-folder folder)
      (run-hook-with-args 'intent-ls-status-functions params)
      (force-mode-line-update t))))

(defun intent-ls-status (&optional buffer)
  "The latest `intent/status' payload (a plist) for BUFFER's folder, or nil."
  (with-current-buffer (or buffer (current-buffer))
    (let ((uri (and buffer-file-name (intent-ls-path-to-uri buffer-file-name)))
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

(defun intent-ls-status-text (&optional buffer)
  "Mode-line text for BUFFER's folder: the active intent and the turn state."
  (let ((status (intent-ls-status buffer)))
    (cond ((null status) " [intent]")
          ((eq (plist-get status :governed) :json-false) " [intent: not governed]")
          (t (let ((intent (plist-get status :intent)))
               (format " [%s %s]"
                       (if intent (plist-get intent :id) "no intent")
                       (plist-get status :state)))))))

(defun intent-ls-settings-object ()
  "`intent-ls-settings' as a JSON object (an empty one when nil)."
  (or intent-ls-settings (make-hash-table)))

(provide 'intent-ls-common)
;;; intent-ls-common.el ends here

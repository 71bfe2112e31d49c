;;; snippet_check.el --- after a README snippet ran: visit a governed file, wait for the server  -*- lexical-binding: t; -*-

;; INTENT_LS_WS (workspace), INTENT_LS_RESULT (JSON written here).

(require 'json)

(let ((result nil)
      (deadline (+ (float-time) 30)))
  (condition-case err
      (progn
        (find-file (expand-file-name "src/auth/jwt.py" (getenv "INTENT_LS_WS")))
        (run-hooks 'post-command-hook)  ; eglot-ensure connects on the command loop
        (while (and (null (intent-ls-status)) (< (float-time) deadline))
          (accept-process-output nil 0.05))
        (let ((status (intent-ls-status)))
          (setq result `((ok . ,(if status t :json-false))
                         (state . ,(plist-get status :state))))))
    (error (setq result `((ok . :json-false) (error . ,(error-message-string err))))))
  (with-temp-file (getenv "INTENT_LS_RESULT")
    (insert (json-encode result)))
  (kill-emacs 0))

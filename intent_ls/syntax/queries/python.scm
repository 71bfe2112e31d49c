; Definitions in Python. Each pattern captures the definition node as
; @definition.<kind> and its name as @name. When several patterns capture the same node,
; the first pattern wins, so the specific ones (methods) come before the general ones.

(class_definition
  body: (block
    (function_definition name: (identifier) @name) @definition.method))

(class_definition
  body: (block
    (decorated_definition
      definition: (function_definition name: (identifier) @name) @definition.method)))

(class_definition name: (identifier) @name) @definition.class

(function_definition name: (identifier) @name) @definition.function

; Definitions in JavaScript (and JSX): @definition.<kind> on the node, @name on its name.

(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method

(class_declaration name: (identifier) @name) @definition.class

(function_declaration name: (identifier) @name) @definition.function

(generator_function_declaration name: (identifier) @name) @definition.function

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression)])) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression)])) @definition.function

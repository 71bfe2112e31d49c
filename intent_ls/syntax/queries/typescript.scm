; Definitions in TypeScript: @definition.<kind> on the node, @name on its name.

(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method

(abstract_method_signature name: (property_identifier) @name) @definition.method

(class_declaration name: (type_identifier) @name) @definition.class

(abstract_class_declaration name: (type_identifier) @name) @definition.class

(interface_declaration name: (type_identifier) @name) @definition.interface

(type_alias_declaration name: (type_identifier) @name) @definition.type

(enum_declaration name: (identifier) @name) @definition.enum

(internal_module name: [(identifier) (nested_identifier)] @name) @definition.module

(function_declaration name: (identifier) @name) @definition.function

(generator_function_declaration name: (identifier) @name) @definition.function

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression)])) @definition.function

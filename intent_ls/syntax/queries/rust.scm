; Definitions in Rust: @definition.<kind> on the node, @name on its name. An impl block is
; a container named after its type, so its functions become `Type.method`.

(impl_item
  body: (declaration_list
    (function_item name: (identifier) @name) @definition.method))

(trait_item
  body: (declaration_list
    (function_item name: (identifier) @name) @definition.method))

(impl_item
  type: [(type_identifier) @name
         (generic_type type: (type_identifier) @name)
         (scoped_type_identifier name: (type_identifier) @name)]) @definition.impl

(function_item name: (identifier) @name) @definition.function

(struct_item name: (type_identifier) @name) @definition.struct

(enum_item name: (type_identifier) @name) @definition.enum

(trait_item name: (type_identifier) @name) @definition.trait

(mod_item name: (identifier) @name) @definition.module

(macro_definition name: (identifier) @name) @definition.macro

; Definitions in Go: @definition.<kind> on the node, @name on its name. A method's
; @receiver (the receiver's type name) qualifies it: `Type.Method`.

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @receiver
             (pointer_type (type_identifier) @receiver)
             (generic_type type: (type_identifier) @receiver)
             (pointer_type (generic_type type: (type_identifier) @receiver))]))
  name: (field_identifier) @name) @definition.method

(function_declaration name: (identifier) @name) @definition.function

(type_declaration (type_spec name: (type_identifier) @name type: (struct_type))) @definition.struct

(type_declaration (type_spec name: (type_identifier) @name type: (interface_type))) @definition.interface

(type_declaration (type_spec name: (type_identifier) @name)) @definition.type

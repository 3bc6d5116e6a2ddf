; Syntax-stage query for Go.
; Based on tree-sitter-go 0.25 queries/tags.scm (MIT) without its doc-comment captures, with
; struct / interface / named types split, method receivers as containers, struct fields,
; interface methods, package-level constants and variables, writes and imports.

; ---- definitions -------------------------------------------------------------------------------

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver
        (pointer_type (type_identifier) @receiver)
        (generic_type type: (type_identifier) @receiver)
        (pointer_type (generic_type type: (type_identifier) @receiver))
      ]))
  name: (field_identifier) @name) @definition.method
(method_declaration name: (field_identifier) @name) @definition.method

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type_alias
(type_alias name: (type_identifier) @name) @definition.type_alias

(field_declaration name: (field_identifier) @name) @definition.field
(method_elem name: (field_identifier) @name) @definition.method

(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))

; ---- references --------------------------------------------------------------------------------

(call_expression function: (identifier) @ref.call)
(call_expression function: (selector_expression field: (field_identifier) @ref.call))
(call_expression function: (parenthesized_expression (identifier) @ref.call))
(composite_literal type: (type_identifier) @ref.call)
(composite_literal type: (qualified_type name: (type_identifier) @ref.call))

(type_identifier) @ref.type
(qualified_type package: (package_identifier) @ref.read)

(assignment_statement left: (expression_list (selector_expression field: (field_identifier) @ref.write)))

; ---- imports -----------------------------------------------------------------------------------

(import_spec path: (_) @import.path) @import

; ---- comments (left out of signatures and body hashes) ----------------------------------------

(comment) @comment

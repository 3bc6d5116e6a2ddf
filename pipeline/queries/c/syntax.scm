; Syntax-stage query for C.
; Based on tree-sitter-c 0.24 queries/tags.scm (MIT), but with the whole function definition as the
; definition node (its span and body hash), unions, enumerators, struct fields, typedefs through
; pointers, macros, file-level variables, prototypes (forward definitions), writes and includes.

; ---- definitions -------------------------------------------------------------------------------

; Function definitions: the name is found in code by walking the declarator, through at most two
; pointer declarators (`captures::c_function_definition`); as three nested patterns they were about
; half of this query's compile time.
(function_definition) @definition.c_function

(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(enumerator name: (identifier) @name) @definition.enum_member
(field_declaration declarator: (field_identifier) @name) @definition.field
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @definition.field
(field_declaration declarator: (array_declarator declarator: (field_identifier) @name)) @definition.field

(type_definition declarator: (type_identifier) @name) @definition.type_alias
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type_alias
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @definition.type_alias

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(translation_unit (declaration declarator: (identifier) @name) @definition.variable)
(translation_unit
  (declaration declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))) @definition.variable)
(translation_unit
  (declaration declarator: (init_declarator declarator: (array_declarator declarator: (identifier) @name))) @definition.variable)

; ---- forward declarations (prototypes) ---------------------------------------------------------

(declaration declarator: (function_declarator declarator: (identifier) @forward))
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @forward)))

; ---- references --------------------------------------------------------------------------------

; Callees are picked in code (`captures::c_callee`): a call's `function` when an identifier, the
; field of `a.b`.
(call_expression) @ref.call.c
(type_identifier) @ref.type
(assignment_expression left: (field_expression field: (field_identifier) @ref.write))

; ---- imports -----------------------------------------------------------------------------------

(preproc_include path: (_) @import.path) @import

; ---- comments (left out of signatures and body hashes) ----------------------------------------

(comment) @comment

; Syntax-stage query for Rust.
; Based on tree-sitter-rust 0.24 queries/tags.scm (MIT), with kinds split (struct / enum / union /
; type alias instead of "class"), plus fields, variants, constants, associated types, impl scopes,
; writes, type references and `use` imports.

; ---- definitions -------------------------------------------------------------------------------

(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(type_item name: (type_identifier) @name) @definition.type_alias
(associated_type name: (type_identifier) @name) @definition.type_alias
(trait_item name: (type_identifier) @name) @definition.trait
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(field_declaration name: (field_identifier) @name) @definition.field
(enum_variant name: (identifier) @name) @definition.enum_member

; Item-position macro calls whose first argument is a name (`rgtest!(r16, |dir, cmd| …)`,
; `syntax!(literal1, "a", …)`): test-generating macros define a function of that name.
(source_file
  (expression_statement
    (macro_invocation (token_tree . (identifier) @name . ",")) @definition.function))
(declaration_list (macro_invocation (token_tree . (identifier) @name . ",")) @definition.function)

; ---- containers that are not definitions -------------------------------------------------------

(impl_item trait: (_) @scope.trait type: (_) @scope.type) @scope.impl
(impl_item !trait type: (_) @scope.type) @scope.impl

; ---- references --------------------------------------------------------------------------------

(call_expression function: (identifier) @ref.call)
(call_expression function: (field_expression field: (field_identifier) @ref.call))
(call_expression function: (scoped_identifier name: (identifier) @ref.call))
(call_expression
  function: (generic_function
    function: [
      (identifier) @ref.call
      (scoped_identifier name: (identifier) @ref.call)
      (field_expression field: (field_identifier) @ref.call)
    ]))
(macro_invocation macro: (identifier) @ref.call)
(macro_invocation macro: (scoped_identifier name: (identifier) @ref.call))
(struct_expression name: (type_identifier) @ref.call)
(struct_expression name: (scoped_type_identifier name: (type_identifier) @ref.call))

(type_identifier) @ref.type
(scoped_identifier path: (identifier) @ref.read)
(scoped_type_identifier path: (identifier) @ref.read)

(assignment_expression left: (field_expression field: (field_identifier) @ref.write))
(compound_assignment_expr left: (field_expression field: (field_identifier) @ref.write))

; ---- imports -----------------------------------------------------------------------------------

(use_declaration argument: (_) @import.rust) @import
(extern_crate_declaration name: (identifier) @import.path) @import

; ---- comments (left out of signatures and body hashes) ----------------------------------------

(line_comment) @comment
(block_comment) @comment

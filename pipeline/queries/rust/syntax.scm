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

; Callees and assignment targets are captured as whole expressions and named by the Rust code
; (`@ref.call.expr` / `@ref.write.expr`: an identifier itself, `a.b` -> `b`, `a::b` -> `b`,
; `f::<T>` -> `f`): one shallow pattern per context instead of one nested pattern per callee
; shape, which cut compiling this query from ~100 ms to ~40 ms (paid by every run that parses a
; Rust file, including a one-file commit).
(call_expression function: (_) @ref.call.expr)
(macro_invocation macro: (_) @ref.call.expr)
(struct_expression name: (_) @ref.call.expr)

(type_identifier) @ref.type
(scoped_identifier path: (identifier) @ref.read)
(scoped_type_identifier path: (identifier) @ref.read)

(assignment_expression left: (field_expression) @ref.write.expr)
(compound_assignment_expr left: (field_expression) @ref.write.expr)

; ---- imports -----------------------------------------------------------------------------------

(use_declaration argument: (_) @import.rust) @import
(extern_crate_declaration name: (identifier) @import.path) @import

; ---- comments (left out of signatures and body hashes) ----------------------------------------

(line_comment) @comment
(block_comment) @comment

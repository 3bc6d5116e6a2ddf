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
; `syntax!(literal1, "a", …)`): test-generating macros define a function of that name. The
; argument is picked in code (`@name.first_argument`): matching it here (`(token_tree . (identifier)
; @name . ",")`) was a third of this query's compile time.
(source_file (expression_statement (macro_invocation) @definition.function @name.first_argument))
(declaration_list (macro_invocation) @definition.function @name.first_argument)

; ---- containers that are not definitions -------------------------------------------------------

(impl_item trait: (_) @scope.trait type: (_) @scope.type) @scope.impl
(impl_item !trait type: (_) @scope.type) @scope.impl

; ---- supertypes ---------------------------------------------------------------------------------

; A trait's supertraits, picked in code from its `bounds` (`@ref.supertypes`). The trait and type
; of `impl Trait for Type` are marked from the `@scope.trait` / `@scope.type` captures above. Both
; become `relationships` rows.
(trait_item) @ref.supertypes

; ---- references --------------------------------------------------------------------------------

; Callees, written fields and path prefixes are picked by the Rust code from childless patterns:
; `@ref.call.callee` on a call, macro call or struct literal names its `function` / `macro` /
; `name` field (an identifier itself, `a.b` -> `b`, `a::b` -> `b`, `f::<T>` -> `f`; other shapes
; are no site), `@ref.write.assignment` the `left` field when a field access, `@ref.read.path` the
; `path` field when a plain identifier. A pattern with a child (`function: (_)`, `left:
; (field_expression)`) costs the query compiler far more than one without, and this compile is
; paid by every run that parses a Rust file, including a one-file commit: ~150 M instructions
; with nested patterns, ~50 M like this.
(call_expression) @ref.call.callee
(macro_invocation) @ref.call.callee
(struct_expression) @ref.call.callee

(type_identifier) @ref.type
(scoped_identifier) @ref.read.path
(scoped_type_identifier) @ref.read.path

(assignment_expression) @ref.write.assignment
(compound_assignment_expr) @ref.write.assignment

; ---- imports -----------------------------------------------------------------------------------

(use_declaration argument: (_) @import.rust) @import
(extern_crate_declaration name: (identifier) @import.path) @import

; ---- comments (left out of signatures and body hashes) ----------------------------------------

(line_comment) @comment
(block_comment) @comment

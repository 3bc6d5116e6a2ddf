; Syntax-stage query for TypeScript and TSX (compiled once per grammar).
; Based on tree-sitter-typescript 0.23 queries/tags.scm and tree-sitter-javascript 0.25
; queries/tags.scm (MIT), plus classes, enums, type aliases, namespaces, fields, module-level
; variables, writes and imports. Functions directly inside a class become methods in the Rust code.

; ---- definitions -------------------------------------------------------------------------------

; `@named_definition.<kind>`: the node's `name` field is the name. Used where the grammar allows
; only the types the tags query's `name: (…)` asked for, so it finds the same names without the
; child pattern, which costs compile time (queries/README.md).
(function_declaration) @named_definition.function
(generator_function_declaration) @named_definition.function
(function_signature) @named_definition.function
(function_expression) @named_definition.function

(class_declaration) @named_definition.class
(abstract_class_declaration) @named_definition.class
(class) @named_definition.class
(interface_declaration) @named_definition.interface
(type_alias_declaration) @named_definition.type_alias
(enum_declaration) @named_definition.enum
(enum_body name: (property_identifier) @name @definition.enum_member)
(enum_assignment name: (property_identifier) @name) @definition.enum_member
(internal_module) @named_definition.module
(module) @named_definition.module

(method_definition
  name: (property_identifier) @name
  (#eq? @name "constructor")) @definition.constructor
(method_definition) @named_definition.method
(method_signature) @named_definition.method
(abstract_method_signature) @named_definition.method
(public_field_definition) @named_definition.field
(property_signature) @named_definition.field

(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
; `f = () => …` and `a.f = function () {…}`: the name is found in code
; (`captures::assigned_function`); as one nested pattern with two alternations it was the most
; expensive pattern of this query.
(assignment_expression) @definition.js_assigned_function
(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.function

(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program
  (export_statement
    declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)))
(program
  (export_statement
    declaration: (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable)))
(ambient_declaration (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(ambient_declaration (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(internal_module
  body: (statement_block
    (export_statement
      declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable))))

; ---- references --------------------------------------------------------------------------------

; Callees and written properties are picked in code from childless patterns (see the README):
; `@ref.call.callee` names a call's `function` / a `new`'s `constructor` (an identifier, or the
; property of `a.b`; calls inside decorators included), `@ref.write.assignment` the property of an
; `a.b = …` / `a.b += …` target. Nested, these patterns were ~40% of this query's compile time.
(call_expression) @ref.call.callee
(new_expression) @ref.call.callee

(type_identifier) @ref.type
(extends_clause value: (identifier) @ref.type)

; Supertypes (`extends` / `implements` of a class, `extends` of an interface) are picked in code
; from the clause (`@ref.supertypes`, see the README); they become `relationships` rows.
(class_heritage) @ref.supertypes
(extends_type_clause) @ref.supertypes
(decorator (identifier) @ref.read)

(assignment_expression) @ref.write.assignment
(augmented_assignment_expression) @ref.write.assignment

; ---- imports -----------------------------------------------------------------------------------

(import_statement source: (string) @import.path) @import
(import_statement (import_clause (identifier) @import.name) source: (string) @import.path) @import
(import_statement
  (import_clause (named_imports (import_specifier name: (identifier) @import.name)))
  source: (string) @import.path) @import
(import_statement (import_clause (namespace_import) @import.glob) source: (string) @import.path) @import
(import_statement (import_require_clause source: (string) @import.path)) @import
(export_statement source: (string) @import.path) @import
(export_statement
  (export_clause (export_specifier name: (identifier) @import.name))
  source: (string) @import.path) @import
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string) @import.path)
  (#eq? @_require "require")) @import
(call_expression function: (import) arguments: (arguments . (string) @import.path)) @import

; ---- comments (left out of signatures and body hashes) ----------------------------------------

(comment) @comment

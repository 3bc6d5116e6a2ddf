; Syntax-stage query for JavaScript (and JSX).
; Based on tree-sitter-javascript 0.25 queries/tags.scm (MIT) without its doc-comment captures,
; plus constructors, class fields, module-level variables, writes, JSX components and imports
; (ES modules, `require`, dynamic `import()`). Functions directly inside a class become methods.

; ---- definitions -------------------------------------------------------------------------------

; `@named_definition.<kind>`: the node's `name` field is the name. Used where the grammar allows
; only the types the tags query's `name: (…)` asked for, so it finds the same names without the
; child pattern, which costs compile time (queries/README.md).
(function_declaration) @named_definition.function
(generator_function_declaration) @named_definition.function
(function_expression) @named_definition.function
(generator_function) @named_definition.function

(class_declaration) @named_definition.class
(class) @named_definition.class

(method_definition
  name: (property_identifier) @name
  (#eq? @name "constructor")) @definition.constructor
(method_definition) @named_definition.method
(field_definition property: (_) @name) @definition.field

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

; ---- references --------------------------------------------------------------------------------

; `@ref.call.callee` names a call's `function` / a `new`'s `constructor` (an identifier, or the
; property of `a.b`), `@ref.write.assignment` the property of an `a.b = …` / `a.b += …` target;
; childless, they compile far faster than the nested patterns they replace.
(call_expression) @ref.call.callee
(new_expression) @ref.call.callee
(class_heritage (identifier) @ref.type)
; The extended class, picked in code (`@ref.supertypes`); it becomes a `relationships` row.
(class_heritage) @ref.supertypes
(decorator (identifier) @ref.read)
(jsx_opening_element name: (identifier) @ref.read (#match? @ref.read "^[A-Z]"))
(jsx_self_closing_element name: (identifier) @ref.read (#match? @ref.read "^[A-Z]"))

(assignment_expression) @ref.write.assignment
(augmented_assignment_expression) @ref.write.assignment

; ---- imports -----------------------------------------------------------------------------------

(import_statement source: (string) @import.path) @import
(import_statement (import_clause (identifier) @import.name) source: (string) @import.path) @import
(import_statement
  (import_clause (named_imports (import_specifier name: (identifier) @import.name)))
  source: (string) @import.path) @import
(import_statement (import_clause (namespace_import) @import.glob) source: (string) @import.path) @import
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

; Syntax-stage query for Python.
; Based on tree-sitter-python 0.25 queries/tags.scm (MIT), plus class attributes, annotated
; module-level names, decorators, attribute writes and imports. Functions directly inside a class
; become methods in the Rust code; upper-case module names become constants.

; ---- definitions -------------------------------------------------------------------------------

(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function

; Assignments that define names (module-level variables, also in a module-level `if` / `try`
; body and `a, b = …` lists; class-body fields; `self.x = …` in `__init__`, a field of the class)
; are told apart in code by where the statement stands (`@assignment.python`, see
; `python_assignment_defs`): as nested patterns they were over half of this query's compile time.
(assignment) @assignment.python

; ---- references --------------------------------------------------------------------------------

; Callees, written attributes and the names of decorators, superclasses and types are picked in
; code from childless patterns (see the README): `@ref.call.callee` names a call's `function` field
; (an identifier, or the attribute of `a.b`), `@ref.write.assignment` the attribute of an
; `a.b = …` / `a.b += …` target, `@ref.read.python` the identifiers (or attributes of `a.b`)
; directly in a decorator, a class's superclass list or a type, and in a type's `generic_type`.
(call) @ref.call.callee
(decorator) @ref.read.python
(class_definition) @ref.read.python
(type) @ref.read.python

(assignment) @ref.write.assignment
(augmented_assignment) @ref.write.assignment

; ---- imports -----------------------------------------------------------------------------------

(import_statement name: (dotted_name) @import.path) @import
(import_statement name: (aliased_import name: (dotted_name) @import.path)) @import
(import_from_statement module_name: (_) @import.path) @import
(import_from_statement module_name: (_) @import.path name: (dotted_name) @import.name) @import
(import_from_statement
  module_name: (_) @import.path
  name: (aliased_import name: (dotted_name) @import.name)) @import
(import_from_statement module_name: (_) @import.path (wildcard_import) @import.glob) @import

; ---- comments (left out of signatures and body hashes) ----------------------------------------

(comment) @comment

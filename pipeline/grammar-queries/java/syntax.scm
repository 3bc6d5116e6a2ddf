; Syntax-stage query for Java.
; Based on tree-sitter-java 0.23 queries/tags.scm (MIT), plus enums, records, annotation types,
; constructors, fields, enum constants, writes and imports.

; ---- definitions -------------------------------------------------------------------------------

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(enum_constant name: (identifier) @name) @definition.enum_member
(method_declaration name: (identifier) @name) @definition.method
(annotation_type_element_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(compact_constructor_declaration name: (identifier) @name) @definition.constructor
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant

; ---- references --------------------------------------------------------------------------------

; `@ref.call.callee` names a call's `name` and the class a `new` creates (`C`, `C<T>`, `a.b.C`);
; `@ref.write.assignment` the field of a `this.x = …` / `a.x += …` target. Childless, they compile
; far faster than the nested patterns they replace.
(method_invocation) @ref.call.callee
(object_creation_expression) @ref.call.callee
(method_reference (identifier) @ref.read .)

(type_identifier) @ref.type
; Supertypes (`extends`, `implements`, an interface's `extends`), picked in code
; (`@ref.supertypes`); they become `relationships` rows.
(superclass) @ref.supertypes
(super_interfaces) @ref.supertypes
(extends_interfaces) @ref.supertypes
(marker_annotation name: (identifier) @ref.read)
(annotation name: (identifier) @ref.read)

(assignment_expression) @ref.write.assignment

; ---- imports -----------------------------------------------------------------------------------

(import_declaration (scoped_identifier) @import.path) @import
(import_declaration (identifier) @import.path) @import

; ---- comments (left out of signatures and body hashes) ----------------------------------------

(line_comment) @comment
(block_comment) @comment

; Syntax-stage query for C++.
; Based on tree-sitter-cpp 0.23 queries/tags.scm (MIT), with the whole function definition as the
; definition node, the scope of qualified names (`Foo::bar`) as container, classes, namespaces,
; member declarations, aliases, enumerators, fields, macros, prototypes, writes and includes.

; ---- definitions -------------------------------------------------------------------------------

; Function definitions: the name and the scope of a qualified name (`Foo::bar` is a method of
; `Foo`) are found in code by walking the declarator (`captures::cpp_function_definition`); as six
; nested patterns they took over half of this query's compile time.
(function_definition) @definition.cpp_function

(field_declaration
  declarator: (function_declarator
    declarator: [(field_identifier) (destructor_name) (operator_name)] @name)) @definition.method
(declaration
  declarator: (function_declarator declarator: [(destructor_name) (operator_name)] @name)) @definition.method

(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(enumerator name: (identifier) @name) @definition.enum_member
(namespace_definition name: (_) @name) @definition.module
(field_declaration declarator: (field_identifier) @name) @definition.field
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @definition.field
(field_declaration declarator: (array_declarator declarator: (field_identifier) @name)) @definition.field
(field_declaration declarator: (reference_declarator (field_identifier) @name)) @definition.field

(type_definition declarator: (type_identifier) @name) @definition.type_alias
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type_alias
(alias_declaration name: (type_identifier) @name) @definition.type_alias
(concept_definition name: (identifier) @name) @definition.trait

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(translation_unit (declaration declarator: (identifier) @name) @definition.variable)
(namespace_definition
  body: (declaration_list
    (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable))

; ---- forward declarations (prototypes) ---------------------------------------------------------

(declaration declarator: (function_declarator declarator: (identifier) @forward))
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @forward)))

; ---- references --------------------------------------------------------------------------------

; Callees are picked in code (`captures::c_callee`): a call's `function` when an identifier, the
; field of `a.b`, the name of `a::f` and of `f<T>`; the type of `new T`.
(call_expression) @ref.call.c
(new_expression) @ref.call.c
(type_identifier) @ref.type
(namespace_identifier) @ref.read
(assignment_expression left: (field_expression field: (field_identifier) @ref.write))

; ---- imports -----------------------------------------------------------------------------------

(preproc_include path: (_) @import.path) @import

; ---- comments (left out of signatures and body hashes) ----------------------------------------

(comment) @comment

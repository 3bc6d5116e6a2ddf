; Syntax-stage query for C++.
; Based on tree-sitter-cpp 0.23 queries/tags.scm (MIT), with the whole function definition as the
; definition node, the scope of qualified names (`Foo::bar`) as container, classes, namespaces,
; member declarations, aliases, enumerators, fields, macros, prototypes, writes and includes.

; ---- definitions -------------------------------------------------------------------------------

; Function definitions: the name and the scope of a qualified name (`Foo::bar` is a method of
; `Foo`) are found in code by walking the declarator (`captures::cpp_function_definition`); as six
; nested patterns they took over half of this query's compile time.
(function_definition) @definition.cpp_function

; Member functions (`void f();`, `~Foo();`, `bool operator==(…)`) and fields (`x`, `*p`, `a[4]`,
; `&r`) declared in a class body: found in code by walking each declarator (`captures::c_fields`).
(field_declaration) @definition.cpp_fields
; Destructors and operators declared in a declaration (`~Foo();` at namespace level), and
; prototypes below: found in code by walking each declarator (`captures::c_declaration`).
(declaration) @declaration.c

; Classes, structs, unions and enums with a body and a plain name (`captures::c_type_definition`).
[(class_specifier) (struct_specifier) (union_specifier) (enum_specifier)] @definition.c_type
(enumerator name: (identifier) @name) @definition.enum_member
(namespace_definition name: (_) @name) @definition.module

(type_definition declarator: (type_identifier) @name) @definition.type_alias
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type_alias
(alias_declaration name: (type_identifier) @name) @definition.type_alias
(concept_definition name: (identifier) @name) @definition.trait

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; Variables declared at file or namespace level: `x` (file level only) and `x = 1` declarators of
; the declarations directly in the translation unit or a namespace body (`captures::c_variables`).
; As three nested patterns rooted at `declaration`, which stands in many parse states, they were a
; third of this query's compile time.
(translation_unit) @definition.cpp_variables
(namespace_definition) @definition.cpp_variables

; ---- forward declarations (prototypes) ---------------------------------------------------------

; `f(…)` and `*f(…)` declarators of a declaration: `@declaration.c` above.

; ---- references --------------------------------------------------------------------------------

; Callees are picked in code (`captures::c_callee`): a call's `function` when an identifier, the
; field of `a.b`, the name of `a::f` and of `f<T>`; the type of `new T`.
(call_expression) @ref.call.c
(new_expression) @ref.call.c
(type_identifier) @ref.type
; Base classes, picked in code (`@ref.supertypes`); they become `relationships` rows.
(base_class_clause) @ref.supertypes
(namespace_identifier) @ref.read
(assignment_expression) @ref.write.assignment

; ---- imports -----------------------------------------------------------------------------------

(preproc_include path: (_) @import.path) @import

; ---- comments (left out of signatures and body hashes) ----------------------------------------

(comment) @comment

; Syntax-stage query for C.
; Based on tree-sitter-c 0.24 queries/tags.scm (MIT), but with the whole function definition as the
; definition node (its span and body hash), unions, enumerators, struct fields, typedefs through
; pointers, macros, file-level variables, prototypes (forward definitions), writes and includes.

; ---- definitions -------------------------------------------------------------------------------

; Function definitions: the name is found in code by walking the declarator, through at most two
; pointer declarators (`captures::c_function_definition`); as three nested patterns they were about
; half of this query's compile time.
(function_definition) @definition.c_function

; Structs, unions and enums with a body and a plain name (`captures::c_type_definition`).
[(struct_specifier) (union_specifier) (enum_specifier)] @definition.c_type
(enumerator name: (identifier) @name) @definition.enum_member
; Fields `x`, `*p` and `a[4]` of a struct or union (`captures::c_fields`).
(field_declaration) @definition.c_fields

(type_definition declarator: (type_identifier) @name) @definition.type_alias
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type_alias
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @definition.type_alias

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; Variables declared at file level: `x`, `x = 1`, `*x = …` and `x[] = …` declarators of the
; declarations directly in the translation unit (`captures::c_variables`); cheaper to compile than
; the four nested patterns they replace.
(translation_unit) @definition.c_variables

; ---- forward declarations (prototypes) ---------------------------------------------------------

; Prototypes: `f(…)` and `*f(…)` declarators of a declaration (`captures::c_declaration`).
(declaration) @declaration.c

; ---- references --------------------------------------------------------------------------------

; Callees are picked in code (`captures::c_callee`): a call's `function` when an identifier, the
; field of `a.b`.
(call_expression) @ref.call.c
(type_identifier) @ref.type
(assignment_expression) @ref.write.assignment

; ---- imports -----------------------------------------------------------------------------------

(preproc_include path: (_) @import.path) @import

; ---- comments (left out of signatures and body hashes) ----------------------------------------

(comment) @comment

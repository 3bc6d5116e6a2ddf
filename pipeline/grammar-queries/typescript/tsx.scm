; TSX additions to typescript/syntax.scm: capitalised JSX element names are component references.

(jsx_opening_element name: (identifier) @ref.read (#match? @ref.read "^[A-Z]"))
(jsx_self_closing_element name: (identifier) @ref.read (#match? @ref.read "^[A-Z]"))

#![allow(dead_code)]

use crate::types::{descriptor, Descriptor};
use crate::types::{Package, Symbol};
use protobuf::{MessageField, SpecialFields};
use std::borrow::Cow;

#[non_exhaustive]
#[derive(Debug, PartialEq)]
pub enum SymbolError {
    InvalidIndex,
    InvalidIdentifier(String),
    MissingDescriptor,
    MissingCharacter(String),
    EndOfSymbol(String),
    InvalidLocalSymbol(String),
}

/// Returns true if the symbol is obviously not a local symbol.
///
/// CAUTION: Does not perform full validation of the symbol string's contents.
pub fn is_global_symbol(sym: &str) -> bool {
    !is_local_symbol(sym)
}

/// Returns true if the symbol is obviously not a global symbol.
///
/// CAUTION: Does not perform full validation of the symbol string's contents.
pub fn is_local_symbol(sym: &str) -> bool {
    sym.starts_with("local ")
}

pub fn is_simple_identifier(sym: &str) -> bool {
    sym.chars().all(|c| c.is_alphanumeric() || c == '$' || c == '+' || c == '-' || c == '_')
}

pub fn try_parse_local_symbol(sym: &str) -> Result<Option<&str>, SymbolError> {
    if !sym.starts_with("local ") {
        return Ok(None);
    }
    let suffix = &sym[6..];
    if !suffix.is_empty() && is_simple_identifier(suffix) {
        return Ok(Some(suffix));
    }
    Err(SymbolError::InvalidLocalSymbol(sym.to_string()))
}

pub struct SymbolFormatOptions {
    pub include_scheme: bool,
    pub include_package_manager: bool,
    pub include_package_name: bool,
    pub include_package_version: bool,
    pub include_descriptor: bool,
}

impl SymbolFormatOptions {
    fn default() -> SymbolFormatOptions {
        SymbolFormatOptions {
            include_scheme: true,
            include_package_manager: true,
            include_package_name: true,
            include_package_version: true,
            include_descriptor: true,
        }
    }
}

pub fn format_symbol_with(symbol: Symbol, options: SymbolFormatOptions) -> String {
    let mut parts = vec![];
    let Symbol {
        scheme,
        package: MessageField(package),
        descriptors,
        ..
    } = symbol;

    // Handle local symbols first, to enforce simple formatting
    if scheme == "local" {
        if let Some(symbol) = descriptors
            .iter()
            .find_map(|desc| match desc.suffix.enum_value() {
                Ok(descriptor::Suffix::Local) => Some(format!("local {}", desc.name)),
                _ => None,
            })
        {
            return symbol;
        }
    }

    if options.include_scheme {
        parts.push(scheme);
    }

    if options.include_package_manager {
        match &package {
            Some(package) if !package.manager.is_empty() => parts.push(package.manager.clone()),
            _ => parts.push(".".to_string()),
        }
    }

    if options.include_package_name {
        match &package {
            Some(package) if !package.name.is_empty() => parts.push(package.name.clone()),
            _ => parts.push(".".to_string()),
        }
    }

    if options.include_package_version {
        match &package {
            Some(package) if !package.version.is_empty() => parts.push(package.version.clone()),
            _ => parts.push(".".to_string()),
        }
    }

    if options.include_descriptor && !descriptors.is_empty() {
        parts.push(
            descriptors
                .iter()
                .filter_map(|desc| {
                    Some(match desc.suffix.enum_value() {
                        Ok(val) => {
                            let name = escape_name(&desc.name);
                            match val {
                                descriptor::Suffix::Package | descriptor::Suffix::Namespace => {
                                    format!("{}/", name)
                                }
                                descriptor::Suffix::Type => format!("{}#", name),
                                descriptor::Suffix::Term => format!("{}.", name),
                                descriptor::Suffix::Method => {
                                    format!("{}({}).", name, desc.disambiguator)
                                }
                                descriptor::Suffix::TypeParameter => format!("[{}]", name),
                                descriptor::Suffix::Parameter => format!("({})", name),
                                descriptor::Suffix::Macro => format!("{}!", name),
                                descriptor::Suffix::Meta => format!("{}:", name),
                                descriptor::Suffix::Local => format!("{}", name),
                                descriptor::Suffix::UnspecifiedSuffix => return None,
                            }
                        }
                        Err(_) => return None,
                    })
                })
                .collect::<Vec<String>>()
                .concat(),
        );
    }

    parts.join(" ")
}

fn escape_name(name: &str) -> String {
    if name
        .chars()
        .all(|ch| ch == '_' || ch == '+' || ch == '-' || ch == '$' || ch.is_ascii_alphanumeric())
    {
        name.to_string()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

pub fn format_symbol(symbol: Symbol) -> String {
    format_symbol_with(symbol, SymbolFormatOptions::default())
}

impl Symbol {
    pub fn new_local(id: usize) -> Self {
        internal_local_symbol(id.to_string().as_str())
    }
}

pub fn parse_symbol(symbol: &str) -> Result<Symbol, SymbolError> {
    // CKB-PATCH: the parse itself is `parse_symbol_ref`; this owned form copies its names out.
    parse_symbol_ref(symbol).map(SymbolRef::into_owned)
}

/// CKB-PATCH: a parsed symbol whose names borrow from the symbol string (a name is owned only
/// where an escape had to be undone). [`parse_symbol`] is this, copied into a [`Symbol`].
#[derive(Debug, Clone, PartialEq)]
pub struct SymbolRef<'a> {
    pub scheme: Cow<'a, str>,
    /// `None` when the manager, name and version are all empty (`.`), as in [`Symbol`].
    pub package: Option<PackageRef<'a>>,
    pub descriptors: Vec<DescriptorRef<'a>>,
}

/// CKB-PATCH: the borrowed form of [`Package`]; `.` reads as the empty string, as there.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageRef<'a> {
    pub manager: Cow<'a, str>,
    pub name: Cow<'a, str>,
    pub version: Cow<'a, str>,
}

/// CKB-PATCH: the borrowed form of [`Descriptor`].
#[derive(Debug, Clone, PartialEq)]
pub struct DescriptorRef<'a> {
    pub name: Cow<'a, str>,
    pub disambiguator: Cow<'a, str>,
    pub suffix: descriptor::Suffix,
}

impl DescriptorRef<'_> {
    pub fn into_owned(self) -> Descriptor {
        Descriptor {
            name: self.name.into_owned(),
            disambiguator: self.disambiguator.into_owned(),
            suffix: self.suffix.into(),
            special_fields: SpecialFields::default(),
        }
    }
}

impl SymbolRef<'_> {
    /// The [`Symbol`] that 0.10.0's `parse_symbol` returned for the same string.
    pub fn into_owned(self) -> Symbol {
        Symbol {
            scheme: self.scheme.into_owned(),
            package: match self.package {
                Some(p) => MessageField::some(Package {
                    manager: p.manager.into_owned(),
                    name: p.name.into_owned(),
                    version: p.version.into_owned(),
                    special_fields: SpecialFields::default(),
                }),
                None => MessageField::none(),
            },
            descriptors: self
                .descriptors
                .into_iter()
                .map(DescriptorRef::into_owned)
                .collect(),
            special_fields: SpecialFields::default(),
        }
    }
}

/// CKB-PATCH: [`parse_symbol`] without copying the names out of `symbol`: it accepts and rejects
/// exactly the same strings, with the same errors, and `into_owned` gives the same [`Symbol`].
pub fn parse_symbol_ref(symbol: &str) -> Result<SymbolRef<'_>, SymbolError> {
    fn dot(s: Cow<'_, str>) -> Cow<'_, str> {
        if s == "." {
            Cow::Borrowed("")
        } else {
            s
        }
    }

    match try_parse_local_symbol(symbol) {
        Ok(Some(s)) => {
            return Ok(SymbolRef {
                scheme: Cow::Borrowed("local"),
                package: None,
                descriptors: vec![DescriptorRef {
                    name: Cow::Borrowed(s),
                    disambiguator: Cow::Borrowed(""),
                    suffix: descriptor::Suffix::Local,
                }],
            })
        }
        Err(err) => return Err(err),
        Ok(None) => {},
    }

    let mut parser = SymbolParser::new(symbol);

    let scheme = parser.accept_space_escaped_identifier("scheme")?;

    let package = PackageRef {
        manager: dot(parser.accept_space_escaped_identifier("package.manager")?),
        name: dot(parser.accept_space_escaped_identifier("package.name")?),
        version: dot(parser.accept_space_escaped_identifier("package.version")?),
    };

    // If all the package fields are empty, we can just say that package is None
    let package = match (
        package.manager.as_ref(),
        package.name.as_ref(),
        package.version.as_ref(),
    ) {
        ("", "", "") => None,
        _ => Some(package),
    };

    Ok(SymbolRef {
        scheme,
        package,
        descriptors: parser.accept_descriptors()?,
    })
}

fn new_descriptor(name: Cow<'_, str>, suffix: descriptor::Suffix) -> DescriptorRef<'_> {
    DescriptorRef {
        name,
        disambiguator: Cow::Borrowed(""),
        suffix,
    }
}

fn new_descriptor_with_disambiguator<'a>(
    name: Cow<'a, str>,
    suffix: descriptor::Suffix,
    disambiguator: Cow<'a, str>,
) -> DescriptorRef<'a> {
    DescriptorRef {
        name,
        disambiguator,
        suffix,
    }
}

/// CKB-PATCH: the parser walks the symbol string by byte offset (always on a character boundary)
/// instead of first copying it into a `Vec<char>`, and returns identifiers as slices of the string
/// instead of collecting them char by char. It visits the same characters in the same order, so
/// it accepts, rejects and reports exactly what 0.10.0 does; the `Debug` form (which the
/// descriptor-name error embeds) is still the one the derived impl gave the `Vec<char>` parser.
struct SymbolParser<'a> {
    sym: &'a str,
    /// Byte offset of the current character.
    index: usize,
}

impl std::fmt::Debug for SymbolParser<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SymbolParser")
            .field("sym", &self.sym.chars().collect::<Vec<char>>())
            .field("index", &self.char_index())
            .finish()
    }
}

impl<'a> SymbolParser<'a> {
    fn new(sym: &'a str) -> Self {
        Self { sym, index: 0 }
    }

    /// The current position counted in characters (what 0.10.0's `index` was).
    fn char_index(&self) -> usize {
        self.sym.get(..self.index).map_or(0, |s| s.chars().count())
    }

    fn current(&self) -> Result<char, SymbolError> {
        match self.sym.as_bytes().get(self.index) {
            Some(&b) if b.is_ascii() => Ok(b as char),
            Some(_) => self
                .sym
                .get(self.index..)
                .and_then(|rest| rest.chars().next())
                .ok_or(SymbolError::InvalidIndex),
            None => Err(SymbolError::InvalidIndex),
        }
    }

    fn peek_next(&self) -> Option<char> {
        let mut rest = self.sym.get(self.index..)?.chars();
        rest.next()?;
        rest.next()
    }

    fn accept_space_escaped_identifier(&mut self, what: &str) -> Result<Cow<'a, str>, SymbolError> {
        self.accept_escaped_identifier(what, ' ')
    }

    fn accept_backtick_escpaed_identifier(&mut self, what: &str) -> Result<Cow<'a, str>, SymbolError> {
        self.accept_escaped_identifier(what, '`')
    }

    /// Reads up to the next single `escape_char` (which must be ASCII, as ' ' and '`' are); a
    /// doubled one stands for itself. The escape byte never occurs inside a multi-byte character,
    /// so scanning bytes visits the same stops as scanning characters. The name is a slice of the
    /// symbol unless a doubled escape had to be undone.
    fn accept_escaped_identifier(
        &mut self,
        what: &str,
        escape_char: char,
    ) -> Result<Cow<'a, str>, SymbolError> {
        debug_assert!(escape_char.is_ascii());
        let escape = escape_char as u8;
        let sym: &'a str = self.sym;
        let bytes = sym.as_bytes();
        let mut name: Option<String> = None;
        let mut segment = self.index;
        while let Some(at) = bytes[self.index..].iter().position(|&b| b == escape) {
            self.index += at + 1;
            if self.current()? == escape_char {
                // Keep one of the two escape characters.
                name.get_or_insert_with(String::new)
                    .push_str(&sym[segment..self.index]);
                self.index += 1;
                segment = self.index;
            } else {
                let last = &sym[segment..self.index - 1];
                return Ok(match name {
                    Some(mut name) => {
                        name.push_str(last);
                        Cow::Owned(name)
                    }
                    None => Cow::Borrowed(last),
                });
            }
        }
        self.index = bytes.len();

        Err(SymbolError::EndOfSymbol(format!("Parsing {}", what)))
    }

    fn accept_identifier(&mut self, what: &str) -> Result<Cow<'a, str>, SymbolError> {
        match self.current()? {
            '`' => {
                self.index += 1;
                Ok(self.accept_escaped_identifier(what, '`')?)
            }
            _ => {
                let sym: &'a str = self.sym;
                let bytes = sym.as_bytes();
                let start = self.index;
                while let Some(&b) = bytes.get(self.index) {
                    // ASCII: the same test as below, without decoding a char.
                    if b.is_ascii() {
                        if !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'$' | b'_')) {
                            break;
                        }
                        self.index += 1;
                        continue;
                    }
                    let Ok(c) = self.current() else { break };
                    if !(c.is_alphabetic()
                        || c.is_digit(10)
                        || c == '-'
                        || c == '+'
                        || c == '$'
                        || c == '_')
                    {
                        break;
                    }
                    self.index += c.len_utf8();
                }

                if start == self.index {
                    Err(SymbolError::InvalidIdentifier(what.to_string()))
                } else {
                    Ok(Cow::Borrowed(&sym[start..self.index]))
                }
            }
        }
    }

    fn accept_character(&mut self, c: char, what: &str) -> Result<char, SymbolError> {
        // if self.peek_next().ok_or(SymbolError::InvalidIndex)? == c {
        if self.current()? == c {
            self.index += c.len_utf8();
            Ok(c)
        } else {
            Err(SymbolError::MissingCharacter(format!(
                "{}:: Expected: {}, Got: {}",
                what.to_string(),
                c,
                self.current()?
            )))
        }
    }

    /// CKB-PATCH: the error `accept_identifier` would have returned had it been given the
    /// original label `descriptor name: {parser:?} / {len}`, with the parser as it stood at
    /// `start` (the label only reaches `InvalidIdentifier` and `EndOfSymbol`).
    fn descriptor_name_error(&mut self, err: SymbolError, start: usize) -> SymbolError {
        let reached = std::mem::replace(&mut self.index, start);
        let what = format!("descriptor name: {:?} / {}", self, self.sym.chars().count());
        self.index = reached;
        match err {
            SymbolError::InvalidIdentifier(_) => SymbolError::InvalidIdentifier(what),
            SymbolError::EndOfSymbol(_) => SymbolError::EndOfSymbol(format!("Parsing {}", what)),
            other => other,
        }
    }

    fn accept_descriptors(&mut self) -> Result<Vec<DescriptorRef<'a>>, SymbolError> {
        let mut v = Vec::new();
        let len = self.sym.len();
        while self.index < len {
            v.push(self.accept_one_descriptor()?)
        }

        Ok(v)
    }

    fn accept_one_descriptor(&mut self) -> Result<DescriptorRef<'a>, SymbolError> {
        match self.current()? {
            '(' => {
                self.accept_character('(', "Opening Parameter")?;
                let descriptor = new_descriptor(
                    self.accept_identifier("parameter name")?,
                    descriptor::Suffix::Parameter,
                );
                self.accept_character(')', "Closing Parameter")?;
                Ok(descriptor)
            }
            '[' => {
                self.accept_character('[', "Opening Type Parameter")?;
                let descriptor = new_descriptor(
                    self.accept_identifier("type parameter name")?,
                    descriptor::Suffix::TypeParameter,
                );
                self.accept_character(']', "Closing Type Parameter")?;
                Ok(descriptor)
            }
            _ => {
                // CKB-PATCH: the label used to be built eagerly, Debug-printing the whole parser
                // (every char of the symbol) for every descriptor; it is now built only when the
                // identifier is rejected, from the same state, so errors are unchanged.
                let start = self.index;
                let name = match self.accept_identifier("descriptor name") {
                    Ok(name) => name,
                    Err(err) => return Err(self.descriptor_name_error(err, start)),
                };

                let suffix = self.current()?;
                self.index += suffix.len_utf8();
                match suffix {
                    '(' => {
                        // We are not peeking here because we already advanced
                        // past suffix.
                        let disambiguator = match self.current()? {
                            ')' => Cow::Borrowed(""),
                            _ => self.accept_identifier("method disambiguator")?,
                        };

                        self.accept_character(')', "closing method")?;
                        self.accept_character('.', "closing method")?;

                        Ok(new_descriptor_with_disambiguator(
                            name,
                            descriptor::Suffix::Method,
                            disambiguator,
                        ))
                    }
                    '/' => Ok(new_descriptor(name, descriptor::Suffix::Package)),
                    '.' => Ok(new_descriptor(name, descriptor::Suffix::Term)),
                    '#' => Ok(new_descriptor(name, descriptor::Suffix::Type)),
                    ':' => Ok(new_descriptor(name, descriptor::Suffix::Meta)),
                    '!' => Ok(new_descriptor(name, descriptor::Suffix::Macro)),
                    _ => Err(SymbolError::MissingDescriptor),
                }
            }
        }
    }
}

fn internal_local_symbol(id: &str) -> Symbol {
    let descriptor = Descriptor {
        name: id.to_string(),
        disambiguator: "".to_string(),
        suffix: descriptor::Suffix::Local.into(),
        special_fields: SpecialFields::default(),
    };

    Symbol {
        scheme: "local".to_string(),
        package: protobuf::MessageField::none(),
        descriptors: vec![descriptor],
        special_fields: SpecialFields::default(),
    }
}

impl Package {
    fn new_with_values(manager: &str, name: &str, version: &str) -> MessageField<Package> {
        MessageField::some(Package {
            manager: manager.to_string(),
            name: name.to_string(),
            version: version.to_string(),
            special_fields: SpecialFields::default(),
        })
    }
}

#[cfg(test)]
mod test {
    use crate::types::Package;

    use super::*;
    // CKB-PATCH: std's `assert_eq` instead of `pretty_assertions` (a dev-dependency that is not
    // vendored), so `.ci/run` runs these tests offline.

    // CKB-PATCH: the parser builds borrowed descriptors; the tests compare owned ones.
    fn new_descriptor(name: String, suffix: descriptor::Suffix) -> Descriptor {
        super::new_descriptor(Cow::Owned(name), suffix).into_owned()
    }

    fn new_descriptor_with_disambiguator(
        name: String,
        suffix: descriptor::Suffix,
        disambiguator: String,
    ) -> Descriptor {
        super::new_descriptor_with_disambiguator(
            Cow::Owned(name),
            suffix,
            Cow::Owned(disambiguator),
        )
        .into_owned()
    }

    #[test]
    fn parses_local() {
        assert_eq!(
            parse_symbol("local a").expect("to parse local"),
            internal_local_symbol("a")
        );
    }

    #[test]
    fn parses_backtick_escaped_descriptor() {
        assert_eq!(
            parse_symbol("a b c d `e f`.").expect("to parse backtick escaped"),
            Symbol {
                scheme: "a".to_string(),
                package: Package::new_with_values("b", "c", "d"),
                descriptors: vec![new_descriptor("e f".to_string(), descriptor::Suffix::Term)],
                special_fields: SpecialFields::default(),
            }
        );
    }

    #[test]
    fn parses_java_symbol() {
        let input_symbol =
            "lsif-java maven package 1.0.0 java/io/File#Entry.method(+1).(param)[TypeParam]";

        assert_eq!(
            parse_symbol(input_symbol).expect("java symbol"),
            Symbol {
                scheme: "lsif-java".to_string(),
                package: Package::new_with_values("maven", "package", "1.0.0"),
                descriptors: vec![
                    new_descriptor("java".to_string(), descriptor::Suffix::Package),
                    new_descriptor("io".to_string(), descriptor::Suffix::Package),
                    new_descriptor("File".to_string(), descriptor::Suffix::Type),
                    new_descriptor("Entry".to_string(), descriptor::Suffix::Term),
                    new_descriptor_with_disambiguator(
                        "method".to_string(),
                        descriptor::Suffix::Method,
                        "+1".to_string(),
                    ),
                    new_descriptor("param".to_string(), descriptor::Suffix::Parameter),
                    new_descriptor("TypeParam".to_string(), descriptor::Suffix::TypeParameter),
                ],
                special_fields: SpecialFields::default(),
            }
        );

        assert_eq!(
            input_symbol,
            format_symbol(parse_symbol(input_symbol).expect("java symbol"))
        )
    }

    #[test]
    fn parses_rust_method_no_disambiguator() {
        let input_symbol = "rust-analyzer cargo test_rust_dependency 0.1.0 MyType#new().";

        assert_eq!(
            parse_symbol(input_symbol).expect("rust symbol"),
            Symbol {
                scheme: "rust-analyzer".to_string(),
                package: Package::new_with_values("cargo", "test_rust_dependency", "0.1.0"),
                descriptors: vec![
                    new_descriptor("MyType".to_string(), descriptor::Suffix::Type),
                    new_descriptor_with_disambiguator(
                        "new".to_string(),
                        descriptor::Suffix::Method,
                        "".to_string(),
                    ),
                ],
                special_fields: SpecialFields::default(),
            }
        );

        assert_eq!(
            input_symbol,
            format_symbol(parse_symbol(input_symbol).expect("rust symbol"))
        )
    }

    #[test]
    fn parses_rust_method_with_disambiguator() {
        let input_symbol = "rust-analyzer cargo test_rust_dependency 0.1.0 MyType#new(test).";

        assert_eq!(
            parse_symbol(input_symbol).expect("rust symbol"),
            Symbol {
                scheme: "rust-analyzer".to_string(),
                package: Package::new_with_values("cargo", "test_rust_dependency", "0.1.0"),
                descriptors: vec![
                    new_descriptor("MyType".to_string(), descriptor::Suffix::Type),
                    new_descriptor_with_disambiguator(
                        "new".to_string(),
                        descriptor::Suffix::Method,
                        "test".to_string(),
                    ),
                ],
                special_fields: SpecialFields::default(),
            }
        );

        assert_eq!(
            input_symbol,
            format_symbol(parse_symbol(input_symbol).expect("rust symbol"))
        )
    }

    #[test]
    fn formats_symbol_with_dots() {
        assert_eq!(
            "scip-ctags . . . foo.",
            format_symbol(Symbol {
                scheme: "scip-ctags".to_string(),
                package: None.into(),
                descriptors: vec![new_descriptor("foo".to_string(), descriptor::Suffix::Term)],
                ..Default::default()
            })
        );

        // Handles randomly some are empty and some are dots
        assert_eq!(
            "scip-ctags manager . . MyType#foo.",
            format_symbol(Symbol {
                scheme: "scip-ctags".to_string(),
                package: Some(Package {
                    manager: "manager".to_string(),
                    name: ".".to_string(),
                    version: "".to_string(),
                    ..Default::default()
                })
                .into(),

                descriptors: vec![
                    new_descriptor("MyType".to_string(), descriptor::Suffix::Type),
                    new_descriptor("foo".to_string(), descriptor::Suffix::Term)
                ],
                ..Default::default()
            })
        );

        assert_eq!("local 7", format_symbol(Symbol::new_local(7)));
    }

    #[test]
    fn parses_rust_method_with_macro() {
        let input_symbol = "rust-analyzer cargo test_rust_dependency 0.1.0 println!";

        assert_eq!(
            parse_symbol(input_symbol).expect("rust symbol"),
            Symbol {
                scheme: "rust-analyzer".to_string(),
                package: Package::new_with_values("cargo", "test_rust_dependency", "0.1.0"),
                descriptors: vec![new_descriptor(
                    "println".to_string(),
                    descriptor::Suffix::Macro
                ),],
                special_fields: SpecialFields::default(),
            }
        );

        assert_eq!(
            input_symbol,
            format_symbol(parse_symbol(input_symbol).expect("rust symbol"))
        )
    }

    #[test]
    fn test_properly_escapes_identifiers() {
        let symbol_struct = Symbol {
            scheme: "scip-ctags".to_string(),
            package: None.into(),
            descriptors: vec![new_descriptor("foo=".to_string(), descriptor::Suffix::Term)],
            ..Default::default()
        };
        let symbol = format_symbol(symbol_struct.clone());

        assert_eq!(symbol, "scip-ctags . . . `foo=`.");
        assert_eq!(parse_symbol(&symbol).expect("to parse"), symbol_struct);
    }

    #[test]
    fn test_roundtrip_backtick_in_name() {
        let symbol_struct = Symbol {
            scheme: "scip-ctags".to_string(),
            package: None.into(),
            descriptors: vec![new_descriptor(
                "foo`bar".to_string(),
                descriptor::Suffix::Term,
            )],
            ..Default::default()
        };
        let symbol = format_symbol(symbol_struct.clone());

        assert_eq!(symbol, "scip-ctags . . . `foo``bar`.");
        assert_eq!(parse_symbol(&symbol).expect("to parse"), symbol_struct);
    }

    #[test]
    fn test_parse_error() {
        let test_cases = vec![
            "",
            "lsif-java maven package 1.0.0",
            "lsif-java maven package 1.0.0 java/io/File#Entry.trailingstring",
            "lsif-java maven package 1.0.0 java/io/File#Entry.unrecognizedSuffix@",
            "local 🧠",
            "local ",
            "local &&&",
        ];
        for test_case in test_cases {
            assert!(parse_symbol(test_case).is_err());
        }
    }

    #[test]
    fn parses_non_ascii() {
        assert_eq!(
            parse_symbol("rust-analyzer cargo files 0.1.0 `Α`#").expect("to parse local"),
            Symbol {
                scheme: "rust-analyzer".to_string(),
                package: Package::new_with_values("cargo", "files", "0.1.0"),
                descriptors: vec![new_descriptor(
                    "Α".to_string(),
                    descriptor::Suffix::Type
                ),],
                special_fields: SpecialFields::default(),
            }
        );
    }
}

//! Standard-library lists per language: an import matching one is classified `stdlib`.
//!
//! Python: `sys.stdlib_module_names` of CPython 3.11 plus modules removed in 3.12/3.13 and a few
//! Python 2 names still met in old code. Node: `require('module').builtinModules` of Node 20
//! (and anything written with the `node:` scheme). Go: a path whose first element has no dot.
//! Rust: `std`, `core`, `alloc`, `proc_macro`, `test`. Java/Kotlin: the JDK's package roots.
//! C/C++: the ISO C and C++ standard headers and the common POSIX/system headers.

/// Top-level Python standard-library modules.
#[rustfmt::skip]
const PYTHON: &[&str] = &[
    "__future__", "_abc", "_ast", "_asyncio", "_bisect", "_blake2", "_bz2", "_codecs", "_collections",
    "_collections_abc", "_compression", "_contextvars", "_csv", "_ctypes", "_datetime", "_decimal",
    "_functools", "_hashlib", "_heapq", "_imp", "_io", "_json", "_locale", "_lzma", "_md5",
    "_multiprocessing", "_opcode", "_operator", "_pickle", "_posixsubprocess", "_py_abc", "_pydecimal",
    "_pyio", "_queue", "_random", "_sha1", "_sha256", "_sha3", "_sha512", "_signal", "_socket",
    "_sqlite3", "_sre", "_ssl", "_stat", "_statistics", "_string", "_strptime", "_struct", "_thread",
    "_threading_local", "_tkinter", "_tokenize", "_tracemalloc", "_typing", "_uuid", "_warnings",
    "_typeshed", "_weakref", "_weakrefset", "_winapi", "_zoneinfo", "abc", "aifc", "antigravity", "argparse",
    "array", "ast", "asynchat", "asyncio", "asyncore", "atexit", "audioop", "base64", "bdb", "binascii",
    "bisect", "builtins", "bz2", "cProfile", "calendar", "cgi", "cgitb", "chunk", "cmath", "cmd", "code",
    "codecs", "codeop", "collections", "colorsys", "compileall", "concurrent", "configparser",
    "contextlib", "contextvars", "copy", "copyreg", "crypt", "csv", "ctypes", "curses", "dataclasses",
    "datetime", "dbm", "decimal", "difflib", "dis", "distutils", "doctest", "email", "encodings",
    "ensurepip", "enum", "errno", "faulthandler", "fcntl", "filecmp", "fileinput", "fnmatch",
    "fractions", "ftplib", "functools", "gc", "genericpath", "getopt", "getpass", "gettext", "glob",
    "graphlib", "grp", "gzip", "hashlib", "heapq", "hmac", "html", "http", "idlelib", "imaplib",
    "imghdr", "imp", "importlib", "inspect", "io", "ipaddress", "itertools", "json", "keyword",
    "lib2to3", "linecache", "locale", "logging", "lzma", "mailbox", "mailcap", "marshal", "math",
    "mimetypes", "mmap", "modulefinder", "msilib", "msvcrt", "multiprocessing", "netrc", "nis",
    "nntplib", "nt", "ntpath", "nturl2path", "numbers", "opcode", "operator", "optparse", "os",
    "ossaudiodev", "pathlib", "pdb", "pickle", "pickletools", "pipes", "pkgutil", "platform",
    "plistlib", "poplib", "posix", "posixpath", "pprint", "profile", "pstats", "pty", "pwd",
    "py_compile", "pyclbr", "pydoc", "pydoc_data", "pyexpat", "queue", "quopri", "random", "re",
    "readline", "reprlib", "resource", "rlcompleter", "runpy", "sched", "secrets", "select",
    "selectors", "shelve", "shlex", "shutil", "signal", "site", "smtpd", "smtplib", "sndhdr", "socket",
    "socketserver", "spwd", "sqlite3", "sre_compile", "sre_constants", "sre_parse", "ssl", "stat",
    "statistics", "string", "stringprep", "struct", "subprocess", "sunau", "symtable", "sys",
    "sysconfig", "syslog", "tabnanny", "tarfile", "telnetlib", "tempfile", "termios", "textwrap",
    "this", "threading", "time", "timeit", "tkinter", "token", "tokenize", "tomllib", "trace",
    "traceback", "tracemalloc", "tty", "turtle", "turtledemo", "types", "typing", "unicodedata",
    "unittest", "urllib", "uu", "uuid", "venv", "warnings", "wave", "weakref", "webbrowser", "winreg",
    "winsound", "wsgiref", "xdrlib", "xml", "xmlrpc", "zipapp", "zipfile", "zipimport", "zlib",
    "zoneinfo",
    // Python 2 names still imported by old code (under try/except).
    "ConfigParser", "HTMLParser", "Queue", "StringIO", "Tkinter", "__builtin__", "cPickle",
    "cStringIO", "commands", "httplib", "urllib2", "urlparse",
];

/// Node.js built-in modules (without the `node:` scheme).
#[rustfmt::skip]
const NODE: &[&str] = &[
    "assert", "assert/strict", "async_hooks", "buffer", "child_process", "cluster", "console",
    "constants", "crypto", "dgram", "diagnostics_channel", "dns", "dns/promises", "domain", "events",
    "fs", "fs/promises", "http", "http2", "https", "inspector", "inspector/promises", "module", "net",
    "os", "path", "path/posix", "path/win32", "perf_hooks", "process", "punycode", "querystring",
    "readline", "readline/promises", "repl", "stream", "stream/consumers", "stream/promises",
    "stream/web", "string_decoder", "sys", "timers", "timers/promises", "tls", "trace_events", "tty",
    "url", "util", "util/types", "v8", "vm", "wasi", "worker_threads", "zlib",
];

/// Rust crates that ship with the toolchain.
const RUST: &[&str] = &["std", "core", "alloc", "proc_macro", "test"];

/// JDK package roots (dotted prefixes).
#[rustfmt::skip]
const JAVA_PREFIXES: &[&str] = &[
    "java.", "javax.", "jdk.", "sun.", "com.sun.", "org.w3c.dom.", "org.xml.sax.", "org.ietf.jgss.",
    "org.omg.", "kotlin.",
];

/// ISO C, C++ and common POSIX/system headers.
#[rustfmt::skip]
const C_HEADERS: &[&str] = &[
    "assert.h", "complex.h", "ctype.h", "errno.h", "fenv.h", "float.h", "inttypes.h", "iso646.h",
    "limits.h", "locale.h", "math.h", "setjmp.h", "signal.h", "stdalign.h", "stdarg.h", "stdatomic.h",
    "stdbit.h", "stdbool.h", "stdckdint.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h",
    "stdnoreturn.h", "string.h", "tgmath.h", "threads.h", "time.h", "uchar.h", "wchar.h", "wctype.h",
    // POSIX and platform headers.
    "unistd.h", "fcntl.h", "pthread.h", "dirent.h", "dlfcn.h", "poll.h", "pwd.h", "grp.h", "sched.h",
    "semaphore.h", "spawn.h", "strings.h", "syslog.h", "termios.h", "netdb.h", "glob.h", "fnmatch.h",
    "libgen.h", "regex.h", "iconv.h", "langinfo.h", "utime.h", "windows.h", "winsock2.h",
    "ws2tcpip.h", "io.h", "malloc.h", "alloca.h", "endian.h", "execinfo.h", "getopt.h", "ifaddrs.h",
    "link.h", "mqueue.h", "search.h", "ucontext.h", "wordexp.h", "err.h", "features.h", "byteswap.h",
];

/// C header folders of the system (`sys/…`, `netinet/…`).
#[rustfmt::skip]
const C_HEADER_DIRS: &[&str] = &["sys/", "netinet/", "arpa/", "net/", "linux/", "asm/", "bits/", "mach/"];

#[rustfmt::skip]
const CPP_HEADERS: &[&str] = &[
    "algorithm", "any", "array", "atomic", "barrier", "bit", "bitset", "cassert", "ccomplex", "cctype",
    "cerrno", "cfenv", "cfloat", "charconv", "chrono", "cinttypes", "ciso646", "climits", "clocale",
    "cmath", "codecvt", "compare", "complex", "concepts", "condition_variable", "coroutine", "csetjmp",
    "csignal", "cstdarg", "cstdbool", "cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "ctgmath",
    "ctime", "cuchar", "cwchar", "cwctype", "deque", "exception", "execution", "expected", "filesystem",
    "flat_map", "flat_set", "format", "forward_list", "fstream", "functional", "future", "generator",
    "initializer_list", "iomanip", "ios", "iosfwd", "iostream", "istream", "iterator", "latch",
    "limits", "list", "locale", "map", "mdspan", "memory", "memory_resource", "mutex", "new",
    "numbers", "numeric", "optional", "ostream", "print", "queue", "random", "ranges", "ratio",
    "regex", "scoped_allocator", "semaphore", "set", "shared_mutex", "source_location", "span",
    "spanstream", "sstream", "stack", "stacktrace", "stdexcept", "stdfloat", "stop_token", "streambuf",
    "string", "string_view", "strstream", "syncstream", "system_error", "thread", "tuple",
    "type_traits", "typeindex", "typeinfo", "unordered_map", "unordered_set", "utility", "valarray",
    "variant", "vector", "version",
];

/// Whether a top-level Python module is in the standard library.
pub fn python(top: &str) -> bool {
    PYTHON.contains(&top)
}

/// Whether a bare specifier names a Node built-in (`fs`, `fs/promises`).
pub fn node(spec: &str) -> bool {
    NODE.contains(&spec)
}

/// Whether a Rust path's first segment is a toolchain crate.
pub fn rust(first: &str) -> bool {
    RUST.contains(&first)
}

/// Whether a Go import path is a standard package: no dot in its first element.
pub fn go(path: &str) -> bool {
    !path.split('/').next().unwrap_or("").contains('.')
}

/// Whether a dotted Java/Kotlin name lies in the JDK (or the Kotlin standard library).
pub fn java(name: &str) -> Option<&'static str> {
    JAVA_PREFIXES
        .iter()
        .find(|p| name.starts_with(*p))
        .map(|p| p.trim_end_matches('.'))
}

/// Whether an include names a C/C++ standard or system header.
pub fn c_header(include: &str) -> bool {
    C_HEADERS.contains(&include)
        || CPP_HEADERS.contains(&include)
        || C_HEADER_DIRS.iter().any(|d| include.starts_with(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        assert!(python("os") && python("__future__") && !python("requests"));
        assert!(node("fs/promises") && !node("express"));
        assert!(rust("core") && !rust("serde"));
        assert!(go("net/http") && !go("golang.org/x/sync"));
        assert_eq!(java("java.util.List"), Some("java"));
        assert_eq!(java("javafx.scene"), None);
        assert!(
            c_header("stdio.h")
                && c_header("vector")
                && c_header("sys/types.h")
                && !c_header("foo.h")
        );
    }
}

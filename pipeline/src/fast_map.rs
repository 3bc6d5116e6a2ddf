//! The hash map of the pipeline's hot lookup tables (names, paths, symbol strings).
//!
//! foldhash is several times faster than the default SipHash on short string keys. The keys come
//! from the run's own rows and no map's iteration order ever reaches the output, so neither
//! hash flooding nor order matters; a fixed seed keeps runs alike.

use std::collections::{HashMap, HashSet};

/// A hash map with foldhash's fast, fixed-seed hasher.
pub type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// A hash set with the same hasher.
pub type FastSet<K> = HashSet<K, foldhash::fast::FixedState>;

//! Dependency cycles of a module graph: its strongly connected components of two or more modules
//! (Tarjan's algorithm, iterative so a deep graph cannot overflow the stack).
//!
//! One definition for every picture and answer: `ckb query arch` marks the edges of a cycle
//! (`inCycle`) and lists the cycles, the Mermaid and DOT graphs and the report's SVG colour them.
//! An edge lies on a cycle exactly when both its ends are in the same component.

use std::collections::BTreeMap;

/// The cycles of a directed graph given as `(from, to)` pairs: each a sorted list of two or more
/// node names, largest first, then by first name. Self-loops are not cycles between modules.
pub fn cycles<'a>(edges: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<Vec<String>> {
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut pairs = Vec::new();
    for (from, to) in edges {
        let next = index.len();
        let f = *index.entry(from).or_insert(next);
        let next = index.len();
        let t = *index.entry(to).or_insert(next);
        pairs.push((f, t));
    }
    let mut names = vec![""; index.len()];
    for (name, &i) in &index {
        names[i] = name;
    }
    let mut successors = vec![Vec::new(); names.len()];
    for (f, t) in pairs {
        if f != t {
            successors[f].push(t);
        }
    }
    for s in &mut successors {
        s.sort_unstable();
        s.dedup();
    }
    let mut out: Vec<Vec<String>> = components(&successors)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut members: Vec<String> = c.iter().map(|&i| names[i].to_string()).collect();
            members.sort();
            members
        })
        .collect();
    out.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    out
}

/// For each node, the index of its cycle in `cycles` (None when it is on none).
pub fn cycle_of(cycles: &[Vec<String>]) -> BTreeMap<&str, usize> {
    let mut out = BTreeMap::new();
    for (i, c) in cycles.iter().enumerate() {
        for m in c {
            out.insert(m.as_str(), i);
        }
    }
    out
}

/// Whether the edge `from → to` lies on a cycle.
pub fn on_cycle(cycle_of: &BTreeMap<&str, usize>, from: &str, to: &str) -> bool {
    from != to
        && cycle_of
            .get(from)
            .is_some_and(|c| cycle_of.get(to) == Some(c))
}

/// Strongly connected components (iterative Tarjan).
fn components(successors: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let n = successors.len();
    let mut order = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut counter = 0;
    for root in 0..n {
        if order[root] != UNSEEN {
            continue;
        }
        // (node, next successor to visit)
        let mut work = vec![(root, 0usize)];
        order[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut next)) = work.last_mut() {
            if let Some(&w) = successors[v].get(*next) {
                *next += 1;
                if order[w] == UNSEEN {
                    order[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == order[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(component);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_each_cycle_once_and_ignores_self_loops() {
        let edges = [
            ("a", "b"),
            ("b", "c"),
            ("c", "a"),
            ("c", "d"),
            ("d", "e"),
            ("e", "d"),
            ("f", "f"),
            ("g", "a"),
        ];
        let c = cycles(edges.iter().copied());
        assert_eq!(c, vec![vec!["a", "b", "c"], vec!["d", "e"]]);
        let of = cycle_of(&c);
        assert!(on_cycle(&of, "c", "a"));
        assert!(!on_cycle(&of, "c", "d"), "between two cycles");
        assert!(!on_cycle(&of, "g", "a"));
        assert!(!on_cycle(&of, "f", "f"));
        assert!(cycles(std::iter::empty()).is_empty());
    }

    #[test]
    fn a_long_chain_does_not_overflow() {
        let names: Vec<String> = (0..200_000).map(|i| format!("m{i}")).collect();
        let mut edges: Vec<(&str, &str)> = names.windows(2).map(|w| (&*w[0], &*w[1])).collect();
        edges.push((&names[199_999], &names[0]));
        let c = cycles(edges);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].len(), 200_000);
    }
}

//! Body hashes and signatures of one file's definitions, from their source bytes: a Merkle hash
//! of each definition's token stream (comments and its own name left out, whitespace dropped),
//! and its header text before the body. See `extract.rs` for the rules.

use super::definitions::Def;
use super::extract::MAX_SIGNATURE_BYTES;
use crate::hashing::FieldHasher;

/// Body hashes and signatures of every definition, from its source bytes.
///
/// A definition's token stream is its bytes with comments (ranges from the query's `@comment`
/// captures) and its own name left out, and whitespace dropped except one space between two
/// word characters (so `x*2` and `x * 2` hash alike, `a b` and `ab` do not). A nested
/// definition contributes its kind, name and body hash instead of its bytes (Merkle), which keeps
/// the work linear in the file size. Definitions sharing a node (`a, b = …`) share both.
pub(super) fn hash_and_sign(defs: &mut [Def<'_>], comments: &[(usize, usize)], src: &[u8]) {
    let mut order: Vec<usize> = (0..defs.len()).collect();
    order.sort_by_key(|&i| (defs[i].start, std::cmp::Reverse(defs[i].end), i));
    let mut units: Vec<Unit> = Vec::new();
    let mut unit_of: Vec<usize> = vec![0; defs.len()];
    for &i in &order {
        let n = defs[i].node;
        let name = (defs[i].name_node.start_byte(), defs[i].name_node.end_byte());
        match units.last_mut() {
            Some(u) if u.node_id == n.id() => {
                u.names.push(name);
                unit_of[i] = units.len() - 1;
            }
            _ => {
                unit_of[i] = units.len();
                let end = n.end_byte().min(src.len());
                units.push(Unit {
                    node_id: n.id(),
                    start: n.start_byte().min(end),
                    end,
                    sig_end: defs[i].sig_end.min(end),
                    kind: defs[i].kind,
                    name: defs[i].name.clone(),
                    names: vec![name],
                    hash: String::new(),
                    sig: String::new(),
                });
            }
        }
    }
    // Direct children of each unit (units are properly nested tree nodes).
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); units.len()];
    let mut stack: Vec<usize> = Vec::new();
    for i in 0..units.len() {
        while let Some(&top) = stack.last() {
            if units[top].start <= units[i].start && units[i].end <= units[top].end {
                break;
            }
            stack.pop();
        }
        if let Some(&top) = stack.last() {
            children[top].push(i);
        }
        stack.push(i);
    }
    // Children start after their parents: in reverse order every child is done first.
    let mut buf = Vec::new();
    let mut sig = Vec::new();
    for i in (0..units.len()).rev() {
        buf.clear();
        sig.clear();
        let (start, end, sig_end) = (units[i].start, units[i].end, units[i].sig_end);
        let mut pos = start;
        let mut sig_pos = start;
        for &c in &children[i] {
            let (cs, ce) = (units[c].start, units[c].end);
            if cs < pos {
                continue;
            }
            tokens(&mut buf, src, pos, cs, comments, &units[i].names);
            let child = [
                b"\x00def".as_slice(),
                units[c].kind.as_bytes(),
                units[c].name.as_bytes(),
                units[c].hash.as_bytes(),
            ];
            for part in child {
                buf.extend_from_slice(&(part.len() as u32).to_le_bytes());
                buf.extend_from_slice(part);
            }
            pos = ce;
            if cs < sig_end {
                // A definition inside its parent's header (C `typedef struct x {…} x_t`) stands
                // in the parent's signature by its own signature.
                header(&mut sig, src, sig_pos, cs, comments);
                if !sig.is_empty() && sig.last() != Some(&b' ') {
                    sig.push(b' ');
                }
                sig.extend_from_slice(units[c].sig.as_bytes());
                sig.push(b' ');
                sig_pos = ce;
            }
        }
        tokens(&mut buf, src, pos, end, comments, &units[i].names);
        if sig_pos < sig_end {
            header(&mut sig, src, sig_pos, sig_end, comments);
        }
        let mut h = FieldHasher::new("ckb.body.v1");
        h.field(&buf);
        units[i].hash = h.hex(32);
        units[i].sig = finish_signature(&String::from_utf8_lossy(&sig));
    }
    for (i, d) in defs.iter_mut().enumerate() {
        let u = &units[unit_of[i]];
        d.body_hash = u.hash.clone();
        d.signature = u.sig.clone();
    }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// Appends the token bytes of `src[from..to]`: comments and the given name ranges left out,
/// whitespace dropped but for one space between two word characters.
fn tokens(
    buf: &mut Vec<u8>,
    src: &[u8],
    from: usize,
    to: usize,
    comments: &[(usize, usize)],
    names: &[(usize, usize)],
) {
    let mut gap = true;
    let mut i = from;
    let mut ci = comments.partition_point(|c| c.1 <= from);
    while i < to {
        if skip_comment(comments, &mut ci, &mut i, &mut gap) {
            continue;
        }
        if let Some(&(_, ne)) = names.iter().find(|(ns, ne)| *ns <= i && i < *ne) {
            i = ne;
            gap = true;
            continue;
        }
        // Up to the next comment or name, the bytes are copied a run of non-space bytes at a
        // time (this loop runs over every byte of every definition).
        let mut stop = comments.get(ci).map_or(to, |&(cs, _)| cs.min(to));
        for &(ns, _) in names {
            if ns > i && ns < stop {
                stop = ns;
            }
        }
        let segment = &src[i..stop];
        let mut j = 0;
        while j < segment.len() {
            if segment[j].is_ascii_whitespace() {
                gap = true;
                j += 1;
                continue;
            }
            let run_end = segment[j..]
                .iter()
                .position(u8::is_ascii_whitespace)
                .map_or(segment.len(), |p| j + p);
            if gap && buf.last().is_some_and(|&l| is_word(l)) && is_word(segment[j]) {
                buf.push(b' ');
            }
            buf.extend_from_slice(&segment[j..run_end]);
            gap = false;
            j = run_end;
        }
        i = stop;
    }
}

/// Steps over the comment at `ci` when it starts at or before `i`: `i` moves past it (a gap
/// between tokens), `ci` to the next comment. Returns whether it stepped.
fn skip_comment(
    comments: &[(usize, usize)],
    ci: &mut usize,
    i: &mut usize,
    gap: &mut bool,
) -> bool {
    match comments.get(*ci) {
        Some(&(cs, ce)) if cs <= *i => {
            if ce > *i {
                *i = ce;
                *gap = true;
            }
            *ci += 1;
            true
        }
        _ => false,
    }
}

/// Appends header text `src[from..to]` with comments left out and whitespace collapsed.
fn header(sig: &mut Vec<u8>, src: &[u8], from: usize, to: usize, comments: &[(usize, usize)]) {
    let mut i = from;
    let mut ci = comments.partition_point(|c| c.1 <= from);
    let mut gap = false;
    while i < to {
        if sig.len() > MAX_SIGNATURE_BYTES + 8 {
            break;
        }
        if skip_comment(comments, &mut ci, &mut i, &mut gap) {
            continue;
        }
        let b = src[i];
        if b.is_ascii_whitespace() {
            gap = true;
        } else {
            if gap && !sig.is_empty() && sig.last() != Some(&b' ') {
                sig.push(b' ');
            }
            sig.push(b);
            gap = false;
        }
        i += 1;
    }
}

struct Unit {
    node_id: usize,
    start: usize,
    end: usize,
    sig_end: usize,
    kind: &'static str,
    name: String,
    names: Vec<(usize, usize)>,
    hash: String,
    sig: String,
}

fn finish_signature(sig: &str) -> String {
    let mut s = sig.trim_end().to_string();
    while let Some(stripped) = s
        .strip_suffix('{')
        .or_else(|| s.strip_suffix(':'))
        .or_else(|| s.strip_suffix('='))
        .or_else(|| s.strip_suffix(';'))
    {
        s = stripped.trim_end().to_string();
    }
    crate::signature::cap(&mut s, MAX_SIGNATURE_BYTES);
    s
}

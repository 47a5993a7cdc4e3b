//! `ci-find --tree`: sessions drawn as a tree, each child under its parent
//! (`├─ `, `└─ `), in list order, with a depth limit and parent cycles named.

use std::collections::{BTreeMap, HashSet};

use crate::session::SessionRecord;

/// Levels of indentation at most in `--tree`; deeper sessions are drawn at
/// that depth with a `…` mark (a 20,000-deep chain printed 600 MB of indentation).
const MAX_TREE_DEPTH: usize = 64;

/// Writes sessions as a tree: children under their parent, in list order;
/// a child whose parent is not listed is shown at the top level.
pub fn write_tree(list: &[SessionRecord], out: &mut Vec<u8>) {
    let ids: HashSet<&str> = list.iter().map(|r| r.session.as_str()).collect();
    let mut children: BTreeMap<&str, Vec<&SessionRecord>> = BTreeMap::new();
    for r in list {
        if let Some(p) = r.parent.as_deref().filter(|p| ids.contains(p)) {
            children.entry(p).or_default().push(r);
        }
    }
    let mut seen = HashSet::new();
    for r in list.iter().filter(|r| r.parent.as_deref().is_none_or(|p| !ids.contains(p))) {
        tree_from(r, "", &children, &mut seen, out);
    }
    // Sessions whose parents form a cycle (corrupt metadata) have no root:
    // each cycle is drawn from its first session, marked as such.
    for r in list {
        if !seen.contains(r.session.as_str()) {
            tree_from(r, "(parent cycle) ", &children, &mut seen, out);
        }
    }
}

/// Draws `root` and everything under it, depth first with an explicit stack
/// (a chain of any depth cannot overflow the call stack).
fn tree_from<'a>(
    root: &'a SessionRecord,
    mark: &str,
    children: &BTreeMap<&str, Vec<&'a SessionRecord>>,
    seen: &mut HashSet<&'a str>,
    out: &mut Vec<u8>,
) {
    // (record, lead of its line, its branch, its depth)
    let mut stack: Vec<(&SessionRecord, String, &str, usize)> = vec![(root, String::new(), "", 0)];
    while let Some((r, lead, branch, depth)) = stack.pop() {
        if !seen.insert(r.session.as_str()) {
            // Met again through a parent cycle: named, not drawn twice.
            out.extend_from_slice(format!("{lead}{branch}↺ {}\n", r.session).as_bytes());
            continue;
        }
        let dash = |o: &Option<String>| o.clone().unwrap_or_else(|| "-".into());
        let own_mark = if depth == 0 { mark } else { "" };
        let line = format!(
            "{lead}{branch}{own_mark}{}  {}  {}  {}  {}\n",
            r.session,
            dash(&r.workspace),
            dash(&r.agent),
            dash(&r.status),
            dash(&r.started_at)
        );
        out.extend_from_slice(line.as_bytes());
        let kids = children.get(r.session.as_str()).map(Vec::as_slice).unwrap_or(&[]);
        let next_lead = if depth >= MAX_TREE_DEPTH {
            lead.clone() // no deeper indentation
        } else {
            format!(
                "{lead}{}",
                match branch {
                    "" => "",
                    "├─ " => "│  ",
                    _ => "   ",
                }
            )
        };
        // Pushed in reverse so that the first child is drawn first.
        for (i, k) in kids.iter().enumerate().rev() {
            let b = match (depth + 1 > MAX_TREE_DEPTH, i + 1 == kids.len()) {
                (true, _) => "… ",
                (false, true) => "└─ ",
                (false, false) => "├─ ",
            };
            stack.push((k, next_lead.clone(), b, depth + 1));
        }
    }
}

//! Applying the chosen plan to the value: strings cut with their marker,
//! containers elided down to their kept children and a marker.

use serde_json::Value;

use super::plan::{skip, slot, Node, Plan, Role, PRECUT_MARK};
use super::{marker_for_items, marker_for_members, marker_for_string, Cut, ELISION_KEY};

/// What [`Walk::apply`] needs from the skeleton after the last trial.
pub(super) struct Walk<'s> {
    pub(super) nodes: &'s [Node],
    pub(super) plan: &'s [Plan],
    /// Original length and length in the value of each cuttable string.
    pub(super) lens: &'s [(usize, usize)],
    /// The chosen limit of loose children kept by an elision.
    pub(super) items: usize,
}

impl Walk<'_> {
    /// Applies the plan to the value at node `i` (walking `v` and the
    /// skeleton in the same order they were built) and returns the index past
    /// its subtree.
    pub(super) fn apply(&self, v: &mut Value, i: usize, cut: &mut Cut) -> usize {
        let (nodes, items) = (self.nodes, self.items);
        let step = self.plan.get(i).copied().unwrap_or(Plan::Keep);
        match (nodes.get(i), v) {
            (Some(&Node::Str { idx, .. }), Value::String(s)) => {
                let (len, text_len) = self.lens.get(idx).copied().unwrap_or((s.len(), s.len()));
                let keep = match step {
                    Plan::Cut(keep) => Some(keep),
                    // A pre-cut string is never kept whole (it is longer than
                    // the room); should it be, it still loses its mark.
                    Plan::Keep if len != text_len => s.rfind(PRECUT_MARK).and_then(|at| s[..at].rfind(PRECUT_MARK)),
                    Plan::Keep | Plan::Elide => None,
                };
                if let Some(keep) = keep {
                    if keep < s.len() && keep < len && s.is_char_boundary(keep) {
                        let omitted = len - keep;
                        s.truncate(keep);
                        s.push_str(&marker_for_string(omitted));
                        cut.strings += 1;
                        cut.bytes += omitted;
                    }
                }
                i + 1
            }
            (Some(&Node::Container { end, .. }), Value::Array(values)) => {
                let mut j = i + 1;
                if step == Plan::Elide {
                    let mut elision = Elision::new(items);
                    for mut value in std::mem::take(values) {
                        if elision.keeps(nodes, j) {
                            j = self.apply(&mut value, j + 1, cut);
                            values.push(value);
                        } else {
                            j = skip(nodes, j + 1);
                        }
                    }
                    if elision.omitted > 0 {
                        values.push(Value::String(marker_for_items(elision.omitted)));
                        cut.items += elision.omitted;
                    }
                } else {
                    for value in values.iter_mut() {
                        j = self.apply(value, j + 1, cut);
                    }
                }
                end
            }
            (Some(&Node::Container { end, .. }), Value::Object(members)) => {
                let mut j = i + 1;
                if step == Plan::Elide {
                    let mut elision = Elision::new(items);
                    for (key, mut value) in std::mem::take(members) {
                        if elision.keeps(nodes, j) {
                            j = self.apply(&mut value, j + 1, cut);
                            members.insert(key, value);
                        } else {
                            j = skip(nodes, j + 1);
                        }
                    }
                    if elision.omitted > 0 {
                        let marker = Value::String(marker_for_members(elision.omitted));
                        members.insert(ELISION_KEY.to_owned(), marker);
                        cut.items += elision.omitted;
                    }
                } else {
                    for value in members.values_mut() {
                        j = self.apply(value, j + 1, cut);
                    }
                }
                end
            }
            // Fixed values (including protected members' values) stay as they are.
            _ => skip(nodes, i),
        }
    }
}

/// Walks the children of a container being elided: protected children and the
/// first `limit` loose ones are kept, the other loose ones and an
/// [`ELISION_KEY`] member omitted.
struct Elision {
    limit: usize,
    seen: usize,
    omitted: usize,
}

impl Elision {
    fn new(limit: usize) -> Self {
        Elision { limit, seen: 0, omitted: 0 }
    }

    /// Whether the child whose `Slot` node is at `j` is kept.
    fn keeps(&mut self, nodes: &[Node], j: usize) -> bool {
        let keep = match slot(nodes, j).1 {
            Role::Protected => true,
            Role::Loose => {
                self.seen += 1;
                self.seen <= self.limit
            }
            Role::Ellipsis => false,
        };
        self.omitted += usize::from(!keep);
        keep
    }
}

//! Text for people, a leaf below every reporting layer: the one escaper of
//! control characters ([`printable`]), the typo hint ([`nearest`]) and the
//! plural ending of a count ([`plural`]).

pub(crate) mod printable;

/// `"s"` unless `n` is one: the plural ending of a counted English noun
/// (`1 bad line`, `2 bad lines`).
pub(crate) fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The candidate nearest to `word` by edit distance (insertions, deletions,
/// substitutions, swaps of neighbours; ASCII case ignored), when it is close enough to be a typo:
/// at most one edit per three characters of `word`, and at least one.
pub(crate) fn nearest<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|c| (edit_distance(&word.to_ascii_lowercase(), &c.to_ascii_lowercase()), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Of `candidates`, the one fewest edits from `word` (ties: the first), however
/// many: for a hint among values known to be relevant.
pub(crate) fn closest<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
    candidates.iter().min_by_key(|c| edit_distance(word, c)).copied()
}

/// Edit distance over chars, a swap of two neighbours counting as one edit
/// (the optimal string alignment distance: `modle` is one edit from `model`).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // d[i][j]: distance between a[..i] and b[..j].
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_names_a_likely_typo_only() {
        let names = ["event", "workspace", "session", "tool", "model"];
        assert_eq!(nearest("evnt", &names), Some("event"));
        assert_eq!(nearest("Workspce", &names), Some("workspace"));
        assert_eq!(nearest("tol", &names), Some("tool"));
        assert_eq!(nearest("data.provider", &names), None);
        assert_eq!(nearest("xyz", &names), None);
        assert_eq!(nearest("modle", &names), Some("model"));
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}

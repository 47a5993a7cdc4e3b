//! ci-agg's report views over `--tokens` records: `--blocks` (Claude's
//! 5-hour billing windows, [`crate::aggregate::blocks`]), `--statusline`
//! (`statusline`) and `--week-start` (weeks of `--by week` from a
//! chosen day, labelled by their first date).

use std::path::PathBuf;

use crate::aggregate::blocks::{self, TokenLimit};
use crate::aggregate::query::Query;
use crate::aggregate::Answer;
use crate::diag::Diag;
use crate::output::table::{Columns, Record};
use crate::source::Input;
use crate::time::{self, Weekday};

/// The key of a blocks query: each response's own timestamp.
pub const INSTANT: &str = "timestamp";

/// The flags of the views.
#[derive(Debug, Clone, clap::Args)]
pub struct Views {
    /// 5-hour billing blocks (as ccusage blocks; see BLOCKS in --help):
    /// start, end, responses, tokens, cost and models of each, gaps, and the
    /// active block's time left, burn rate and projection. No PATH: the
    /// default roots of the formats billed in such blocks.
    #[arg(long, conflicts_with_all = ["sessions", "tools", "tokens", "by", "partial", "merge"])]
    pub blocks: bool,
    /// With --blocks: the share of N tokens each block used and the active
    /// block's projection would use (max: the largest finished block's total).
    #[arg(long, value_name = "N|max", value_parser = TokenLimit::parse)]
    pub token_limit: Option<TokenLimit>,
    /// Read an agent's status-line JSON on stdin and print one line: this
    /// session's cost, today's, the active block's and its time left (see
    /// STATUS LINE in --help). Always exits 0.
    #[arg(long, conflicts_with_all = ["sessions", "tools", "tokens", "blocks", "by", "partial", "merge", "format", "columns", "top", "sort", "since", "until", "session"])]
    pub statusline: bool,
    /// With --by week: weeks start on this day (monday … sunday, or mon …
    /// sun) and are labelled by their first date (2026-03-02); without it,
    /// ISO weeks (2026-W10).
    #[arg(long, value_name = "DAY", value_parser = parse_weekday)]
    pub week_start: Option<Weekday>,
}

/// `monday` … `sunday` or their first three letters, any case.
fn parse_weekday(s: &str) -> Result<Weekday, String> {
    time::parse_weekday(s).ok_or_else(|| format!("expected a day of the week (monday … sunday), not {s:?}"))
}

impl Views {
    /// Refuses flags that only mean something with another.
    pub fn check(&self) -> crate::error::Result<()> {
        if self.token_limit.is_some() && !self.blocks {
            return Err(crate::error::Error::Usage("--token-limit is the limit of --blocks: add --blocks".into()));
        }
        Ok(())
    }

    /// The `--by` keys a view adds to its `--tokens` query.
    pub fn keys(&self) -> &'static [&'static str] {
        if self.blocks {
            &[INSTANT]
        } else {
            &[]
        }
    }

    /// Whether the query is `--tokens` for a view.
    pub fn wants_tokens(&self) -> bool {
        self.blocks || self.statusline
    }

    /// Whether the view makes its records from the answer itself ([`Views::records`]).
    pub fn folds(&self) -> bool {
        self.blocks
    }

    /// The records of a view that folds the answer itself ([`Views::folds`]).
    pub fn records(&self, q: &Query, answer: Answer, diag: &Diag) -> Vec<Record> {
        let (mut entries, untimed) = blocks::entries(answer, q);
        note_untimed(untimed, diag);
        let blocks = blocks::blocks(&mut entries);
        let now = time::now();
        let limit = self.token_limit.and_then(|l| blocks::resolve_limit(l, &blocks, now));
        if let (Some(TokenLimit::Max), None) = (self.token_limit, limit) {
            diag.note(&"--token-limit max: no finished block to take the largest total of");
        }
        blocks.iter().map(|b| b.record(now, limit.or(self.token_limit.map(|_| 0)))).collect()
    }

    /// The columns a view's table shows unless `--columns` says.
    pub fn columns(&self) -> Option<Columns> {
        if !self.blocks {
            return None;
        }
        let mut names: Vec<&str> = blocks::TABLE_COLUMNS.to_vec();
        if self.token_limit.is_some() {
            names.push("limit_used_percent");
        }
        Some(Columns::named(&names))
    }

    /// Whether the view's table has no total row.
    pub fn no_total(&self) -> bool {
        self.blocks
    }

    /// The inputs of a blocks view with no PATH: the default roots of the
    /// formats billed in 5-hour windows (`None`: the usual inputs).
    pub fn inputs(&self, paths: &[PathBuf], diag: &Diag) -> Option<Vec<Input>> {
        if !self.blocks || !paths.is_empty() || crate::source::stdin_has_data() {
            return None;
        }
        Some(crate::format::billing_roots(diag).into_iter().map(Input::Path).collect())
    }
}

/// The note of responses that fall in no block.
pub fn note_untimed(untimed: u64, diag: &Diag) {
    if untimed > 0 {
        diag.note(&format_args!(
            "{untimed} response{} without a usable timestamp, in no block",
            if untimed == 1 { "" } else { "s" }
        ));
    }
}

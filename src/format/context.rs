//! What a writer's discovery is given besides the path it looks at: how much
//! of each session record to fill in ([`Detail`]).

/// How much of each session record discovery fills in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// Everything a record has (`ci-find`; tools whose output follows the
    /// session order, newest first, need the start times).
    #[default]
    Full,
    /// What reading the captures needs: ids, paths, project and files. What
    /// only a capture's own lines tell (a transcript's times, model and
    /// working directory, read off its head and tail) is left out, and no
    /// file is opened for it: `ci-agg`, whose answers do not depend on the
    /// order sessions are read in, reads every line anyway.
    Reading,
}

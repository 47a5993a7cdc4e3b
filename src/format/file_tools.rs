//! Which tool calls read or edit a file: `--sessions` lists the files of
//! a session's calls as `files_read` and `files_edited`. Each writer names
//! its own tools ([`super::Dialect::file_tools`]); the path is the one the
//! call's input names ([`super::Dialect::file_path`]). A tool that lists a
//! folder or searches by pattern names no file and is in neither list.

/// What a tool call does to the file its input names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileUse {
    /// The call reads the file.
    Read,
    /// The call writes or changes the file.
    Edit,
}

/// A writer's tools that read a file and tools that edit one, by name.
#[derive(Debug)]
pub struct FileTools {
    /// Tools that read the file their input names.
    pub read: &'static [&'static str],
    /// Tools that write or change the file their input names.
    pub edit: &'static [&'static str],
}

impl FileTools {
    /// What a call of `tool` does to a file, if it is one of these tools.
    pub fn of(&self, tool: &str) -> Option<FileUse> {
        if self.read.contains(&tool) {
            Some(FileUse::Read)
        } else if self.edit.contains(&tool) {
            Some(FileUse::Edit)
        } else {
            None
        }
    }
}

/// Claude Code's tools (Amplifier's and the hooks' events name them too),
/// with the snake-case names of the first writers that followed: the
/// default of every writer.
pub const CLAUDE: FileTools = FileTools {
    read: &["Read", "NotebookRead", "Glob", "Grep", "LS", "read_file", "glob", "grep"],
    edit: &["Edit", "MultiEdit", "Write", "NotebookEdit", "edit_file", "write_file"],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_reads_edits_or_names_no_file() {
        assert_eq!(CLAUDE.of("Read"), Some(FileUse::Read));
        assert_eq!(CLAUDE.of("MultiEdit"), Some(FileUse::Edit));
        assert_eq!(CLAUDE.of("Bash"), None);
        assert_eq!(CLAUDE.of("read"), None, "names are case-sensitive");
    }

    /// The tools the writers' fixtures lack, by the path each reads.
    #[test]
    fn writers_name_their_own_tools() {
        use crate::format::{gemini, opencode, qwen, Format};
        use crate::json::Raw;
        let used = |f: &Format, tool: &str, data: &str| {
            f.dialect.file_use(tool, Raw(data.as_bytes())).map(|(u, p)| (u, p.into_owned()))
        };
        let edit = |p: &str| Some((FileUse::Edit, p.to_owned()));
        let call = r#"{"id":"c1","name":"replace","args":{"file_path":"/a.rs","old_string":"x"}}"#;
        assert_eq!(used(&gemini::FORMAT, "replace", call), edit("/a.rs"));
        assert_eq!(used(&gemini::FORMAT, "glob", r#"{"id":"c2","name":"glob","args":{"path":"/src"}}"#), None);
        let call = r#"{"functionCall":{"id":"c1","name":"edit","args":{"file_path":"/b.rs"}}}"#;
        assert_eq!(used(&qwen::FORMAT, "edit", call), edit("/b.rs"));
        let part = r#"{"data":{"type":"tool","tool":"write","state":{"input":{"filePath":"/c.rs"}}}}"#;
        assert_eq!(used(&opencode::FORMAT, "write", part), edit("/c.rs"));
        assert_eq!(used(&opencode::FORMAT, "glob", part), None);
    }
}
